import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { asInsider, auditVerify, copyDatabase, cutTail } from '../support/audit';
import { describeEachEngine, ownerUrl } from '../support/modes';
import { capturedLogs, eventually, gql, knownSecrets, mobileInput, Stack, startStack } from '../support/stack';
import { AuditCheckpoint } from '../../src/disbursements/audit.keys';
import { startWitness, Witness } from '../support/witness';

jest.setTimeout(120_000);

const CREATE = `mutation Create($input: MobileMoneyDisbursementInput!) { createMobileMoneyDisbursement(input: $input) { referenceId status } }`;
const ONE = `query One($referenceId: ID!) { disbursement(referenceId: $referenceId) { status } }`;
/** The merchant of a gateway without MERCHANTS_FILE. */
const MERCHANT = 'default';

type Readiness = { ready: boolean; auditWitness: string };
const readiness = async (stack: Stack): Promise<{ status: number; body: Readiness }> => {
  const res = await fetch(stack.graphqlUrl.replace('/graphql', '/readyz'));
  return { status: res.status, body: (await res.json()) as Readiness };
};
const metric = async (stack: Stack, name: string): Promise<number | undefined> => {
  const text = await (await fetch(stack.graphqlUrl.replace('/graphql', '/metrics'))).text();
  const value = new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1];
  return value === undefined ? undefined : Number(value);
};
/** Creates `count` payouts and waits until each is final, so the trail has stopped moving. */
async function payouts(stack: Stack, count: number): Promise<void> {
  for (let i = 0; i < count; i += 1) {
    const input = mobileInput({ amount: '10' });
    expect((await gql(stack.graphqlUrl, CREATE, { input })).errors).toBeUndefined();
    await eventually(async () => {
      const { data } = await gql<{ disbursement: { status: string } }>(stack.graphqlUrl, ONE, {
        referenceId: input.referenceId,
      });
      return data?.disbursement.status === 'SUCCESSFUL' ? true : undefined;
    }, 200);
  }
}
const lines = (file: string) =>
  readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as AuditCheckpoint);

describeEachEngine('audit checkpoints published to a witness the database keepers cannot rewrite', (env) => {
  const dir = mkdtempSync(join(tmpdir(), 'audit-witness-'));
  const signingKey = generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  const token = `witness-token-${randomUUID()}`;
  const file = join(dir, 'checkpoints.jsonl');
  let witness: Witness;
  const settings = () => ({
    ...env(),
    AUDIT_SIGNING_KEY: signingKey,
    AUDIT_CHECKPOINT_FILE: file,
    AUDIT_WITNESS_URL: witness.url,
    AUDIT_WITNESS_TOKEN: token,
  });

  beforeAll(async () => {
    knownSecrets.add(token);
    witness = await startWitness(token);
    const stack = await startStack({ env: { ...settings(), AUDIT_CHECKPOINT_SECONDS: '1' } });
    try {
      await payouts(stack, 4);
      // Each round is published as it is signed, while the gateway runs.
      await eventually(async () => ((await readiness(stack)).body.auditWitness === 'current' ? true : undefined), 200);
      await eventually(() => (witness.kept().length > 0 ? true : undefined), 200);
      expect(await metric(stack, 'gateway_audit_checkpoints_local_only')).toBe(0);
    } finally {
      // Shutdown signs every head once more and hands that round to the witness too.
      await stack.close();
    }
  });

  afterAll(async () => {
    await witness.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('receives every checkpoint the gateway signs, with its token, and audit:verify checks the trail against them', async () => {
    // At least once: a checkpoint whose answer was lost may come twice.
    const named = (list: AuditCheckpoint[]) => new Set(list.map((c) => `${c.merchantId}:${c.sequence}:${c.hash}`));
    expect(named(witness.kept())).toEqual(named(lines(file)));
    expect(new Set(witness.authorizations())).toEqual(new Set([`Bearer ${token}`]));

    const result = await auditVerify(env().DATABASE_URL, [], settings());
    expect(result.output).toContain(
      `checking against the checkpoints kept by the witness at ${new URL(witness.url).origin} (AUDIT_WITNESS_URL)`,
    );
    expect(result.output).toMatch(new RegExp(`merchant ${MERCHANT}: \\d+ entries verified\\n`));
    expect(result.output).not.toContain(token);
    expect(result.code).toBe(0);
  });

  it("sends AUDIT_WITNESS_TOKEN to no witness but the configured one's origin: a --witness elsewhere is read without it", async () => {
    const elsewhere = await startWitness();
    try {
      const result = await auditVerify(env().DATABASE_URL, ['--witness', elsewhere.url], settings());
      expect(result.output).toContain(`(--witness)`);
      expect(elsewhere.authorizations().length).toBeGreaterThan(0);
      expect(elsewhere.authorizations()).toEqual(elsewhere.authorizations().map(() => undefined));
    } finally {
      await elsewhere.close();
    }
  });

  it('catches a trail cut together with its checkpoint file and the database checkpoints, which verifies without the witness', async () => {
    const copy = await copyDatabase(ownerUrl(env()));
    try {
      let left = 0;
      await asInsider(copy.url, async (sql) => {
        await cutTail(sql, MERCHANT);
        const [head] = await sql.all<{ sequence: number | string }>(
          'SELECT max(sequence) AS sequence FROM audit_log WHERE merchant_id = ?',
          MERCHANT,
        );
        left = Number(head.sequence);
      });
      // The file beside the database, rewritten by the same hands: only the checkpoints the cut trail still reaches.
      const rewritten = join(dir, 'rewritten.jsonl');
      writeFileSync(
        rewritten,
        lines(file)
          .filter((c) => c.sequence <= left)
          .map((c) => `${JSON.stringify(c)}\n`)
          .join(''),
      );
      const alone = { ...settings(), DATABASE_URL: copy.url, AUDIT_CHECKPOINT_FILE: rewritten, AUDIT_WITNESS_URL: '' };
      const withoutWitness = await auditVerify(copy.url, [], alone);
      expect(withoutWitness.code).toBe(0);

      const against = await auditVerify(copy.url, ['--witness', witness.url], alone);
      expect(against.output).toContain(`(--witness)`);
      expect(against.output).toMatch(new RegExp(`merchant ${MERCHANT}: the entry at sequence \\d+ does not verify`));
      expect(against.code).toBe(1);
    } finally {
      await copy.remove();
    }
  });
});

describe('a witness that does not answer', () => {
  let witness: Witness;
  let stack: Stack;
  beforeAll(async () => {
    witness = await startWitness();
    witness.setDown(true);
    stack = await startStack({ env: { AUDIT_WITNESS_URL: witness.url, AUDIT_CHECKPOINT_SECONDS: '1' } });
  });
  afterAll(async () => {
    await stack.close();
    await witness.close();
  });

  it('holds no payout back: creates are answered, /readyz stays 200 saying the witness is behind, and the checkpoints arrive once it is back', async () => {
    await payouts(stack, 1);
    const behind = await eventually(async () => {
      const state = await readiness(stack);
      return state.body.auditWitness === 'behind' ? state : undefined;
    }, 200);
    expect(behind.status).toBe(200);
    expect(await metric(stack, 'gateway_audit_witness_pending')).toBe(1);
    await payouts(stack, 1);
    expect(witness.kept()).toEqual([]);

    witness.setDown(false);
    await eventually(
      async () => ((await readiness(stack)).body.auditWitness === 'current' ? true : undefined),
      300,
      100,
    );
    expect(witness.kept().map((c) => c.merchantId)).toContain(MERCHANT);
    expect(await metric(stack, 'gateway_audit_witness_pending')).toBe(0);
  });
});

describe('with no witness', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(() => stack.close());

  it('says at start, in /readyz (ready all the same) and in a metric that its checkpoints are kept only beside the database', async () => {
    const state = await readiness(stack);
    expect(state.status).toBe(200);
    expect(state.body).toMatchObject({ ready: true, auditWitness: 'none' });
    expect(await metric(stack, 'gateway_audit_checkpoints_local_only')).toBe(1);
    // A provider is configured (production): a warning.
    const line = capturedLogs
      .flatMap((chunk) => chunk.split('\n'))
      .find((l) => l.includes('AUDIT_WITNESS_URL is unset'));
    expect(line).toBeDefined();
    expect(JSON.parse(line!)).toMatchObject({ level: 40 });
  });
});
