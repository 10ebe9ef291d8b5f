import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SandboxHandle } from '../../src/sandbox/sandbox.server';
import { auditVerify } from '../support/audit';
import { describeEachEngine } from '../support/modes';
import { launchGateway } from '../support/process';
import { QUICK_RECOVERY_ENV, sharedProvider } from '../support/replicas';
import { CREATE_MOBILE, eventually, gql, knownSecrets, mobileInput } from '../support/stack';

jest.setTimeout(180_000);

const TOKEN = 'tok_audit_crashes_0123456789abcdef';
const ONE = `query One($r: ID!) { disbursement(referenceId: $r) { status } }`;
const ROUNDS = 3;
const PER_ROUND = 40;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Issue 44, item 8: creates whose answer times out after a signed callback settled them, answers that
 * never come, and gateways killed (SIGKILL) with creates in flight, round after round on one database.
 * The trail the gateway wrote is then verified as it stands: nothing was tampered with, so
 * `audit:verify` must exit 0.
 */
describeEachEngine('audit:verify after timeouts, late callbacks and SIGKILLs', (databaseEnv) => {
  const dir = mkdtempSync(join(tmpdir(), 'audit-crashes-'));
  const signingKey = generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  let sandbox: SandboxHandle;
  let env: Record<string, string>;

  beforeAll(async () => {
    knownSecrets.add(TOKEN);
    const shared = await sharedProvider(databaseEnv(), { settleMs: 300, callbackRetryBaseMs: 50 });
    sandbox = shared.sandbox;
    env = {
      ...shared.env,
      // The callback (300 ms) settles a payout before its answer times out (1 s).
      ...QUICK_RECOVERY_ENV,
      CLIENT_TOKENS: TOKEN,
      AUDIT_SIGNING_KEY: signingKey,
      AUDIT_CHECKPOINT_FILE: join(dir, 'checkpoints.jsonl'),
      AUDIT_CHECKPOINT_SECONDS: '1',
      RECONCILE_PENDING_AFTER_MS: '1000',
      // A create killed before it left is "not found" at the provider: trusted after 1 s, not 60.
      RESEND_AFTER_SECONDS: '1',
    };
  });

  afterAll(async () => {
    await sandbox?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('the untouched trail verifies (exit 0) with the checkpoint file the gateways kept', async () => {
    // A fifth of the creates are stored and never answered; accounts ending 408 are answered after 30 s.
    sandbox.setFaults({ hangRate: 0.2 });
    const refs: string[] = [];
    let unknowns = 0;
    for (let round = 0; round < ROUNDS; round += 1) {
      const gateway = await launchGateway(env);
      const inputs = Array.from({ length: PER_ROUND }, (_, i) =>
        mobileInput({ amount: '10', ...(i % 4 === 1 && { accountNumber: '260971234408' }) }),
      );
      refs.push(...inputs.map((input) => input.referenceId as string));
      const answers = inputs.map((input) =>
        gql(gateway.graphqlUrl, CREATE_MOBILE, { input }, { authorization: `Bearer ${TOKEN}` }).then(
          (response) => (response.errors?.[0]?.extensions?.code === 'OUTCOME_UNKNOWN' ? 1 : 0),
          () => 0,
        ),
      );
      // Killed with creates in flight: some answered, some waiting for an answer, some not yet sent.
      await sleep(2500);
      gateway.child.kill('SIGKILL');
      unknowns += (await Promise.all(answers)).reduce((a, b) => a + b, 0);
      await gateway.stop();
    }
    expect(unknowns).toBeGreaterThan(0);
    sandbox.setFaults({});
    const last = await launchGateway(env);
    try {
      // Let the payouts the gateways stored settle (late callbacks, the rechecker); verify does not need
      // them all final: a status still open is compared only once final.
      const open = async () => {
        const left: string[] = [];
        for (const r of refs) {
          const { data } = await gql<{ disbursement: { status: string } | null }>(
            last.graphqlUrl,
            ONE,
            { r },
            { authorization: `Bearer ${TOKEN}` },
          );
          const status = data?.disbursement?.status;
          if (status !== undefined && !['SUCCESSFUL', 'FAILED'].includes(status)) left.push(`${r}: ${status}`);
        }
        return left;
      };
      await eventually(async () => ((await open()).length === 0 ? true : undefined), 40, 250).catch(() => undefined);
    } finally {
      await last.stop();
    }
    const result = await auditVerify(env.DATABASE_URL, [], env);
    expect(result.output).toContain(`checking against the checkpoints kept in ${env.AUDIT_CHECKPOINT_FILE}`);
    expect(result.output).toMatch(/merchant default: \d+ entries verified/);
    expect(result.code).toBe(0);
  });
});
