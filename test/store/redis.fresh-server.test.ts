import { describeRedis, requireRedisUrl, uniquePrefix, withRedis } from '../support/redis';
import {
  capturedLogs,
  CREATE_MOBILE,
  eventually,
  gql,
  mobileInput,
  Stack,
  startStack,
  uniqueRef,
} from '../support/stack';

const STATUS = `query One($referenceId: ID!) { disbursement(referenceId: $referenceId) { status } }`;

/**
 * A Redis that has never seen the gateway's scripts (new, restarted, failed over or flushed) must
 * serve every write: the suite once passed only because its Redis kept scripts from earlier runs.
 */
describeRedis('a gateway on a Redis that does not know its scripts', () => {
  const { prefix, cleanup } = uniquePrefix();
  let stack: Stack;

  beforeAll(async () => {
    stack = await startStack({
      env: { REDIS_URL: requireRedisUrl(), REDIS_KEY_PREFIX: prefix },
      sandbox: { settleMs: 100 },
    });
  });
  afterAll(async () => {
    await stack.close();
    await cleanup();
  });

  it('creates a payout and applies its callback right after SCRIPT FLUSH', async () => {
    await withRedis((client) => client.script('FLUSH'));
    const referenceId = uniqueRef('flushed');
    const created = await gql<{ createMobileMoneyDisbursement: { status: string } }>(stack.graphqlUrl, CREATE_MOBILE, {
      input: mobileInput({ referenceId }),
    });
    expect(created.errors).toBeUndefined();
    expect(created.data?.createMobileMoneyDisbursement.status).toBe('PENDING');

    await withRedis((client) => client.script('FLUSH'));
    const settled = await eventually(async () => {
      const res = await gql<{ disbursement: { status: string } | null }>(stack.graphqlUrl, STATUS, { referenceId });
      return res.data?.disbursement?.status === 'SUCCESSFUL' ? res : undefined;
    });
    expect(settled.errors).toBeUndefined();
    expect(capturedLogs.join('')).not.toMatch(/NOSCRIPT|SERVICE_UNAVAILABLE/);
  });
});

/** A Redis error that is not an outage is a fault: masked, logged once with its cause, never "store unavailable". */
describeRedis('a Redis error that is not an outage', () => {
  const { prefix, cleanup } = uniquePrefix();
  let stack: Stack;

  beforeAll(async () => {
    stack = await startStack({ env: { REDIS_URL: requireRedisUrl(), REDIS_KEY_PREFIX: prefix } });
  });
  afterAll(async () => {
    await stack.close();
    await cleanup();
  });

  it('answers INTERNAL_SERVER_ERROR with one error line naming the cause, and sends nothing', async () => {
    const referenceId = uniqueRef('wrongtype');
    // The record's key holds a hash: every script on it fails with WRONGTYPE.
    await withRedis((client) => client.hset(`${prefix}{default}:d:${referenceId}`, 'not', 'a record'));
    const logsBefore = capturedLogs.length;
    const created = await gql(stack.graphqlUrl, CREATE_MOBILE, { input: mobileInput({ referenceId }) });

    expect(created.errors?.map((e) => e.extensions?.code)).toEqual(['INTERNAL_SERVER_ERROR']);
    expect(created.text).not.toMatch(/WRONGTYPE|redis/i);
    const lines = capturedLogs
      .slice(logsBefore)
      .join('')
      .split('\n')
      .filter((l) => l.length > 0)
      .map((l) => JSON.parse(l) as { level: number; msg: string; err?: { message?: string } });
    const errors = lines.filter((l) => l.level >= 50);
    expect(errors).toHaveLength(1);
    expect(JSON.stringify(errors[0])).toMatch(/WRONGTYPE/);
    expect(JSON.stringify(lines)).not.toMatch(/SERVICE_UNAVAILABLE|redis unavailable/);
    expect(stack.sandbox.records().filter((r) => r.referenceId === referenceId)).toEqual([]);

    const metrics = await (await fetch(`${stack.gateway.url}/metrics`)).text();
    expect(metrics).toMatch(/gateway_store_errors_total\{kind="fault"\} [1-9]/);
    expect(metrics).not.toMatch(/gateway_store_errors_total\{kind="outage"\} [1-9]/);
  });
});
