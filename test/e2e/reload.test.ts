import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SandboxHandle, startSandbox } from '../../src/sandbox/sandbox.server';
import { PayoutRow } from '../support/fixtures';
import { GatewayProcess, launchGateway } from '../support/process';
import { CREATE_MOBILE, eventually, gql, GraphQLResponse, knownSecrets, mobileInput } from '../support/stack';

const OLD_KEY = `key-old-${randomUUID()}`;
const NEW_KEY = `key-new-${randomUUID()}`;
const TOKEN = `tok_reload_${randomUUID()}`;
const AUTH = { authorization: `Bearer ${TOKEN}` };
const file = join(mkdtempSync(join(tmpdir(), 'merchants-sighup-')), 'merchants.json');
const merchants = (apiKey: string) => JSON.stringify([{ id: 'shop', apiKey, clientTokens: [TOKEN] }]);

let sandbox: SandboxHandle;
let gateway: GatewayProcess;
beforeAll(async () => {
  const webhookSecret = `whsec_${randomBytes(24).toString('base64')}`;
  knownSecrets.add(OLD_KEY).add(NEW_KEY).add(TOKEN).add(webhookSecret);
  // Each create takes 150 ms at the provider: the reload lands while a hundred are in flight.
  sandbox = await startSandbox({
    port: 0,
    settleMs: 400,
    rateLimitPerMin: 0,
    webhookSecret,
    latencyMs: 150,
    activeKeys: [OLD_KEY, NEW_KEY],
  });
  writeFileSync(file, merchants(OLD_KEY));
  gateway = await launchGateway({
    PORT: '0',
    HOST: '127.0.0.1',
    UPSTREAM_BASE_URL: sandbox.url,
    MERCHANTS_FILE: file,
    WEBHOOK_SECRET: webhookSecret,
    CLIENT_RATE_LIMIT_PER_MIN: '0',
    UPSTREAM_RATE_LIMIT_PER_MIN: '0',
    LOG_LEVEL: 'info',
  });
});
afterAll(async () => {
  await gateway.stop();
  await sandbox.close();
});

/** Which of the two keys the provider holds the payout under (each key keeps its own records). */
async function keyHolding(referenceId: string): Promise<string[]> {
  const found = await Promise.all(
    [OLD_KEY, NEW_KEY].map(async (key) => {
      const res = await fetch(
        `${sandbox.url}/api/v1/disbursements/check-status?referenceId=${encodeURIComponent(referenceId)}`,
        { headers: { 'x-api-key': key, accept: 'application/json' } },
      );
      await res.text();
      return res.status === 200 ? [key] : [];
    }),
  );
  return found.flat();
}

describe('SIGHUP with a changed apiKey while creates are in flight', () => {
  it('answers every create, sends each once, the ones after the reload with the new key, in the same process', async () => {
    const pid = gateway.child.pid;
    const create = (input: Record<string, unknown>) =>
      gql<{ createMobileMoneyDisbursement: PayoutRow }>(gateway.graphqlUrl, CREATE_MOBILE, { input }, AUTH);
    const before = Array.from({ length: 100 }, () => mobileInput());
    let answeredBefore = 0;
    const beforeAnswers = before.map((input) => create(input).finally(() => (answeredBefore += 1)));
    writeFileSync(file, merchants(NEW_KEY));
    gateway.child.kill('SIGHUP');
    await eventually(() => (/MERCHANTS_FILE reloaded: changed: shop/.test(gateway.output()) ? true : undefined), 200);
    // The reload was applied while creates begun under the old key were still running.
    expect(answeredBefore).toBeLessThan(before.length);
    const after = Array.from({ length: 100 }, () => mobileInput());
    const answers: GraphQLResponse<{ createMobileMoneyDisbursement: PayoutRow }>[] = await Promise.all([
      ...beforeAnswers,
      ...after.map(create),
    ]);

    expect(answers.filter((a) => a.errors !== undefined)).toEqual([]);
    expect(answers.map((a) => a.data?.createMobileMoneyDisbursement.status)).not.toContain('UNKNOWN');
    const sent = sandbox.stats().createRequestsByReferenceId;
    for (const input of [...before, ...after]) expect(sent[input.referenceId as string]).toBe(1);
    const holders = async (inputs: Record<string, unknown>[]) =>
      Promise.all(inputs.map((input) => keyHolding(input.referenceId as string)));
    expect(new Set((await holders(after)).map((keys) => keys.join(' ')))).toEqual(new Set([NEW_KEY]));
    expect((await holders(before)).every((keys) => keys.length === 1)).toBe(true);
    expect(gateway.child.pid).toBe(pid);
    expect(gateway.child.exitCode).toBeNull();
    expect(gateway.output()).not.toContain(NEW_KEY);
    expect(gateway.output()).not.toContain(OLD_KEY);
  });
});
