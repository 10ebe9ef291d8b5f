import { Webhook } from 'standardwebhooks';
import { TestIdp } from '../support/idp';
import {
  callbackBody,
  capturedLogs,
  CREATE_MOBILE,
  eventually,
  gql,
  knownSecrets,
  mobileInput,
  Stack,
  startStack,
} from '../support/stack';

const TOKEN = 'tok_log_test_client_0123456789ab';
let idp: TestIdp;
let stack: Stack;
beforeAll(async () => {
  idp = await TestIdp.start();
  stack = await startStack({
    env: {
      CLIENT_TOKENS: TOKEN,
      JWT_JWKS_URL: idp.jwksUrl,
      JWT_ISSUER: idp.issuer,
      JWT_AUDIENCE: idp.audience,
      PAYOUT_CONTROLS: JSON.stringify({ maxAmount: { ZMW: '1000' } }),
    },
  });
  knownSecrets.add(TOKEN);
});
afterAll(async () => {
  await stack.close();
  await idp.close();
});

type Line = {
  msg: string;
  requestId?: string;
  referenceId?: string;
  operation?: string;
  level: number;
  providerCalls?: { endpoint: string; referenceId: string; status: string; durationMs: number }[];
};

describe("a payout's log lines", () => {
  it('are one line per operation (its provider call on it) and one per callback, with one request id and no secret', async () => {
    const input = mobileInput();
    const requestId = `req-${input.referenceId as string}`;
    const res = await gql(
      stack.graphqlUrl,
      CREATE_MOBILE,
      { input },
      { authorization: `Bearer ${TOKEN}`, 'x-request-id': requestId },
    );
    expect(res.errors).toBeUndefined();
    const lines = await eventually(() => {
      const mine = capturedLogs.map((l) => JSON.parse(l) as Line).filter((l) => l.requestId === requestId);
      return mine.some((l) => l.msg === 'callback received') ? mine : undefined;
    });
    expect(lines.map((l) => l.msg).sort()).toEqual(['callback received', 'graphql operation']);
    const operation = lines.find((l) => l.msg === 'graphql operation');
    expect(operation?.operation).toBe('Create');
    // Every send first asks whether the provider already has the payout (404: not yet), then creates it.
    expect(operation?.providerCalls).toEqual([
      {
        endpoint: 'check_status',
        referenceId: input.referenceId,
        status: '404',
        durationMs: expect.any(Number),
      },
      {
        endpoint: 'create_mobile_money',
        referenceId: input.referenceId,
        status: '200',
        durationMs: expect.any(Number),
      },
    ]);
    for (const line of capturedLogs) {
      expect(line).not.toContain(TOKEN);
      expect(line).not.toContain('sandbox-key');
    }
  });

  it('generates a request id when none is given and returns it in x-request-id', async () => {
    const res = await fetch(stack.graphqlUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
      body: JSON.stringify({ query: '{ __typename }' }),
    });
    const id = res.headers.get('x-request-id');
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(capturedLogs.some((l) => l.includes(`"requestId":"${id}"`))).toBe(true);
  });
});

describe('log fields a client controls', () => {
  /** A client-chosen value as a line may hold it: 64 characters and the mark of a cut. */
  const LONGEST = 64 + '…'.length;

  /** The first line with this message whose `field` starts as `value` does, once it is written. */
  const lineOf = (msg: string, field: string, value: string) =>
    eventually(() =>
      capturedLogs
        .map((l) => JSON.parse(l) as Record<string, unknown>)
        .find((l) => l.msg === msg && String(l[field]).startsWith(value.slice(0, 8))),
    );

  /** Every value on the line (nested ones too, its fixed message aside) fits, and `whole` is on no line. */
  const expectCut = (line: Record<string, unknown>, whole: string) => {
    const visit = (value: unknown): void => {
      if (typeof value === 'string') expect(value.length).toBeLessThanOrEqual(LONGEST);
      else if (typeof value === 'object' && value !== null) Object.values(value).forEach(visit);
    };
    visit({ ...line, msg: undefined });
    expect(capturedLogs.some((l) => l.includes(whole))).toBe(false);
  };

  it('cuts an operation name of 60 KB', async () => {
    const operation = `Op${'o'.repeat(60_000)}`;
    const res = await gql(
      stack.graphqlUrl,
      `query ${operation} { __typename }`,
      {},
      { authorization: `Bearer ${TOKEN}` },
    );
    expect(res.errors).toBeUndefined();
    expectCut(await lineOf('graphql operation', 'operation', operation), operation);
  });

  it('takes a request id from the client only when it fits, and says which one it used', async () => {
    const requestId = 'r'.repeat(128);
    const res = await fetch(stack.graphqlUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}`, 'x-request-id': requestId },
      body: JSON.stringify({ query: 'query LongRequestId { __typename }' }),
    });
    expect(res.status).toBe(200);
    const line = await lineOf('graphql operation', 'operation', 'LongRequestId');
    expect(line.requestId).toBe(res.headers.get('x-request-id'));
    expectCut(line, requestId);
  });

  it("cuts a callback's referenceId and delivery id, on its own line and on the provider call that checks it", async () => {
    // Signed, for a payout the gateway does not know: the gateway asks the provider about it.
    const referenceId = `ref-${'c'.repeat(30_000)}`;
    const deliveryId = `msg_${'d'.repeat(8_000)}`;
    const raw = JSON.stringify(callbackBody(referenceId, 'SUCCESSFUL'));
    const at = new Date();
    await fetch(stack.gateway.callbackUrl('default'), {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'webhook-id': deliveryId,
        'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
        'webhook-signature': new Webhook(stack.webhookSecret).sign(deliveryId, at, raw),
      },
      body: raw,
    });
    expectCut(await lineOf('callback received', 'referenceId', referenceId), referenceId);
    expectCut(await lineOf('provider call', 'referenceId', referenceId), referenceId);
    expectCut(await lineOf('callback received', 'deliveryId', deliveryId), deliveryId);
  });

  it("cuts a JWT's subject where a payout control names it as the actor, never inside a character", async () => {
    // Its 64th character is the first half of an emoji.
    const subject = `user-${'s'.repeat(58)}${'😀'.repeat(2_000)}`;
    const jwt = await idp.sign({ claims: { merchant_id: 'default', sub: subject, scope: 'payouts:write' } });
    const refused = await gql(
      stack.graphqlUrl,
      CREATE_MOBILE,
      { input: mobileInput({ amount: '5000' }) },
      { authorization: `Bearer ${jwt}` },
    );
    expect(refused.errors?.[0].extensions?.code).toBe('LIMIT_EXCEEDED');
    const line = await lineOf('payout control', 'actor', subject);
    expectCut(line, subject);
    expect(line.actor).toMatch(/^user-s+…$/);
  });
});
