import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { auditKeyId } from '../../src/disbursements/audit.keys';
import { alterAuditAmount, asInsider, auditVerify, copyDatabase } from '../support/audit';
import { describeEachEngine, ownerUrl } from '../support/modes';
import { eventually, gql, mobileInput, Stack, startStack } from '../support/stack';

jest.setTimeout(180_000);

const CREATE = `mutation Create($input: MobileMoneyDisbursementInput!) { createMobileMoneyDisbursement(input: $input) { referenceId status } }`;
const ONE = `query One($referenceId: ID!) { disbursement(referenceId: $referenceId) { status } }`;
const CHECKPOINTS = 'query Checkpoints { auditCheckpoints { sequence keyId } }';

/** A fresh Ed25519 key: its private PEM (as AUDIT_SIGNING_KEY holds it), its public PEM and its id. */
function auditKey(): { privatePem: string; publicPem: string; id: string } {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  return {
    privatePem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    publicPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    id: auditKeyId(publicKey),
  };
}

describeEachEngine('audit keys rotated: a trail written under key 1, then under key 2 with both configured', (env) => {
  const dir = mkdtempSync(join(tmpdir(), 'audit-rotation-'));
  const key1 = auditKey();
  const key2 = auditKey();
  const merchantsFile = join(dir, 'merchants.json');
  const checkpointFile = join(dir, 'checkpoints.jsonl');
  const public1 = join(dir, 'key1.pub.pem');
  const public2 = join(dir, 'key2.pub.pem');
  const bothPublic = join(dir, 'both.pub.pem');
  const token = `tok-acme-${randomUUID()}`;
  const as = { authorization: `Bearer ${token}` };
  const idleToken = `tok-idle-${randomUUID()}`;
  const settings = (signingKey: string) => ({
    ...env(),
    AUDIT_SIGNING_KEY: signingKey,
    MERCHANTS_FILE: merchantsFile,
    AUDIT_CHECKPOINT_FILE: checkpointFile,
    AUDIT_CHECKPOINT_SECONDS: '1',
  });
  /** The key_id (and action) of every entry of acme, in sequence order. */
  const entryRows = async () => {
    let rows: { key_id: string | null; action: string }[] = [];
    await asInsider(ownerUrl(env()), async (sql) => {
      rows = await sql.all("SELECT key_id, action FROM audit_log WHERE merchant_id = 'acme' ORDER BY sequence");
    });
    return rows;
  };
  const entryKeys = async () => (await entryRows()).map((row) => row.key_id);
  let scheduled: string;
  let underKey1: number;

  const settled = async (
    stack: Stack,
    input: Record<string, unknown>,
    wanted = ['SUCCESSFUL', 'FAILED'],
    headers: Record<string, string> = as,
  ) => {
    const created = await gql<{ createMobileMoneyDisbursement: { referenceId: string } }>(
      stack.graphqlUrl,
      CREATE,
      { input },
      headers,
    );
    const { referenceId } = created.data!.createMobileMoneyDisbursement;
    await eventually(async () => {
      const { data } = await gql<{ disbursement: { status: string } }>(stack.graphqlUrl, ONE, { referenceId }, headers);
      return wanted.includes(data?.disbursement.status ?? '') ? true : undefined;
    }, 400);
    return referenceId;
  };

  beforeAll(async () => {
    writeFileSync(public1, key1.publicPem);
    writeFileSync(public2, key2.publicPem);
    writeFileSync(bothPublic, `${key2.publicPem}${key1.publicPem}`);
    writeFileSync(
      merchantsFile,
      JSON.stringify([
        { id: 'acme', apiKey: 'key-acme', clientTokens: [{ token, name: 'operations' }] },
        { id: 'idle', apiKey: 'key-idle', clientTokens: [{ token: idleToken, name: 'operations' }] },
      ]),
    );
    const sandbox = { activeKeys: ['key-acme', 'key-idle'] };
    const first = await startStack({ env: settings(key1.privatePem), sandbox });
    try {
      await settled(first, mobileInput({ amount: '10' }));
      // A merchant with nothing after the rotation: its trail is re-attested under key 2 all the same.
      await settled(first, mobileInput({ amount: '5' }), undefined, { authorization: `Bearer ${idleToken}` });
      // Scheduled under key 1, sent under key 2: its seal was made with key 1.
      const sendAt = new Date(Date.now() + 8_000).toISOString();
      scheduled = await settled(first, mobileInput({ amount: '12', sendAt }), ['SCHEDULED']);
    } finally {
      await first.close();
    }
    underKey1 = (await entryKeys()).length;
    // The new key first, the old one kept: it still verifies what it made.
    const second = await startStack({ env: settings(`${key2.privatePem}${key1.privatePem}`), sandbox });
    try {
      await eventually(async () => {
        const { data } = await gql<{ disbursement: { status: string } }>(
          second.graphqlUrl,
          ONE,
          { referenceId: scheduled },
          as,
        );
        return data?.disbursement.status === 'SUCCESSFUL' ? true : undefined;
      }, 400);
      await settled(second, mobileInput({ amount: '20' }));
      // Within AUDIT_CHECKPOINT_SECONDS the moved head is signed under key 2; key 1's stay listed.
      const listed = await eventually(async () => {
        const { data } = await gql<{ auditCheckpoints: { sequence: number; keyId: string }[] }>(
          second.graphqlUrl,
          CHECKPOINTS,
          {},
          as,
        );
        return data?.auditCheckpoints[0]?.keyId === key2.id ? data.auditCheckpoints : undefined;
      }, 400);
      expect(listed.map((c) => c.keyId)).toContain(key1.id);
      const trail = await gql<{ auditTrail: { edges: { node: { keyId: string } }[] } }>(
        second.graphqlUrl,
        'query { auditTrail(first: 200) { edges { node { keyId } } } }',
        {},
        as,
      );
      expect(new Set(trail.data!.auditTrail.edges.map((e) => e.node.keyId))).toEqual(new Set([key1.id, key2.id]));
    } finally {
      await second.close();
    }
  });

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('each entry and checkpoint names its key; the payout scheduled under key 1 was sent under key 2', async () => {
    const ids = await entryKeys();
    // The restart under key 2 moved the head at once, so a checkpoint under key 2 re-attests key 1's entries.
    expect((await entryRows())[underKey1]).toEqual({ key_id: key2.id, action: 'AUDIT_KEY_CHANGED' });
    expect(underKey1).toBeGreaterThan(2);
    expect(ids.slice(0, underKey1)).toEqual(Array(underKey1).fill(key1.id));
    expect(ids.slice(underKey1)).toEqual(Array(ids.length - underKey1).fill(key2.id));
    let kept = readFileSync(checkpointFile, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { merchantId: string; sequence: number; keyId: string });
    const idle = kept.filter((c) => c.merchantId === 'idle').map((c) => c.keyId);
    expect([idle[0], idle.at(-1)]).toEqual([key1.id, key2.id]);
    kept = kept.filter((c) => c.merchantId === 'acme');
    expect(kept.filter((c) => c.sequence <= underKey1).map((c) => c.keyId)).toContain(key1.id);
    expect(kept.at(-1)).toMatchObject({ sequence: ids.length, keyId: key2.id });
    let sentUnder: (string | null)[] = [];
    await asInsider(ownerUrl(env()), async (sql) => {
      const rows = await sql.all<{ key_id: string | null }>(
        "SELECT key_id FROM audit_log WHERE merchant_id = 'acme' AND reference_id = ? AND action = 'SENT'",
        scheduled,
      );
      sentUnder = rows.map((row) => row.key_id);
    });
    expect(sentUnder).toEqual([key2.id]);
  });

  it('audit:verify passes with both keys: both private keys, two --public-key files, or one file holding both', async () => {
    const withKeys = await auditVerify(env().DATABASE_URL, [], settings(`${key2.privatePem}${key1.privatePem}`));
    expect(withKeys.output).toMatch(/every chain is intact/);
    expect(withKeys.code).toBe(0);
    for (const args of [
      ['--public-key', public1, '--public-key', public2],
      ['--public-key', bothPublic],
    ]) {
      const result = await auditVerify(env().DATABASE_URL, args, { MERCHANTS_FILE: merchantsFile });
      expect(result.output).toMatch(/merchant acme: \d+ entries verified/);
      expect(result.code).toBe(0);
    }
    expect(withKeys.output).not.toContain(key1.privatePem.split('\n')[1]);
  });

  it("with key 2's alone it names what it could not check, by key and sequence, and never says intact", async () => {
    const publicOnly = await auditVerify(env().DATABASE_URL, ['--public-key', public2], {
      MERCHANTS_FILE: merchantsFile,
      AUDIT_CHECKPOINT_FILE: checkpointFile,
    });
    expect(publicOnly.output).toMatch(
      new RegExp(
        `merchant acme: not checked, no key given for it: .*checkpoint.* at sequences? .*\\(signed under key ${key1.id}\\)`,
      ),
    );
    expect(publicOnly.output).not.toMatch(/intact|merchant acme: \d+ entries verified/);
    expect(publicOnly.code).toBe(3);

    const privateOnly = await auditVerify(env().DATABASE_URL, [], settings(key2.privatePem));
    expect(privateOnly.output).toContain(`entries 1 to ${underKey1} (keyed under key ${key1.id})`);
    expect(privateOnly.output).not.toMatch(/intact/);
    expect(privateOnly.code).toBe(3);
  });

  it('an edit of an entry keyed under key 1 is caught, with both keys and with key 2 alone', async () => {
    const copy = await copyDatabase(ownerUrl(env()));
    try {
      await alterAuditAmount(copy.url, 'acme', 2);
      const runs: [string[], Record<string, string>][] = [
        [[], { ...settings(`${key2.privatePem}${key1.privatePem}`), DATABASE_URL: copy.url }],
        [['--public-key', bothPublic], { MERCHANTS_FILE: merchantsFile }],
        [['--public-key', public2], { MERCHANTS_FILE: merchantsFile }],
        [[], { ...settings(key2.privatePem), DATABASE_URL: copy.url }],
      ];
      for (const [args, extra] of runs) {
        const result = await auditVerify(copy.url, args, extra);
        expect(result.output).toMatch(/merchant acme: the entry at sequence 2 does not verify/);
        expect(result.code).toBe(1);
      }
    } finally {
      await copy.remove();
    }
  });
});
