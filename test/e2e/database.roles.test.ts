import { generateKeyPairSync } from 'node:crypto';
import { chainHash } from '../../src/disbursements/audit.entry';
import { auditVerify } from '../support/audit';
import { describeEachEngine, ownerUrl } from '../support/modes';
import { withClient } from '../support/postgres';
import { capturedLogs, eventually, gql, mobileInput, Stack, startStack } from '../support/stack';

jest.setTimeout(60_000);

const CREATE = `mutation Create($input: MobileMoneyDisbursementInput!) { createMobileMoneyDisbursement(input: $input) { referenceId } }`;
const ONE = `query One($referenceId: ID!) { disbursement(referenceId: $referenceId) { status } }`;

describeEachEngine(
  'least privilege: the gateway’s role cannot lift the audit trail’s guards',
  (databaseEnv) => {
    const signingKey = generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    let stack: Stack;

    beforeAll(async () => {
      stack = await startStack({
        env: { ...databaseEnv(), AUDIT_SIGNING_KEY: signingKey },
      });
      const { data } = await gql<{ createMobileMoneyDisbursement: { referenceId: string } }>(stack.graphqlUrl, CREATE, {
        input: mobileInput(),
      });
      const referenceId = data!.createMobileMoneyDisbursement.referenceId;
      await eventually(async () => {
        const one = await gql<{ disbursement: { status: string } }>(stack.graphqlUrl, ONE, { referenceId });
        return one.data?.disbursement.status === 'SUCCESSFUL' ? true : undefined;
      }, 200);
    });

    afterAll(async () => {
      await stack?.close();
    });

    it.each([
      ['disable the guard trigger', 'ALTER TABLE audit_log DISABLE TRIGGER audit_log_no_change', /must be owner/],
      ['drop the guard trigger', 'DROP TRIGGER audit_log_no_change ON audit_log', /must be owner/],
      ['update an entry', "UPDATE audit_log SET amount = '1.00'", /permission denied/],
      ['delete entries', 'DELETE FROM audit_log', /permission denied/],
      [
        'insert into audit_log directly',
        "INSERT INTO audit_log (merchant_id, sequence, at, action, hash, previous_hash) VALUES ('default', 99, 'x', 'APPROVED', 'x', 'x')",
        /permission denied/,
      ],
      [
        'move a head',
        "UPDATE merchant_heads SET audit_sequence = 1 WHERE merchant_id = 'default'",
        /permission denied/,
      ],
      ['delete checkpoints', 'DELETE FROM audit_checkpoints', /permission denied/],
      ['disable the checkpoints guard', 'ALTER TABLE audit_checkpoints DISABLE TRIGGER ALL', /must be owner/],
    ])('refuses the gateway’s role to %s', async (_what, sql, refusal) => {
      await withClient(databaseEnv().DATABASE_URL, async (client) => {
        await expect(client.query(sql)).rejects.toThrow(refusal);
      });
    });

    it('an entry forged through the append function, linked and hashed by the rule, fails audit:verify', async () => {
      const sequence = await withClient(databaseEnv().DATABASE_URL, async (client) => {
        const { rows } = await client.query<{ audit_sequence: string; audit_hash: string }>(
          "SELECT audit_sequence, audit_hash FROM merchant_heads WHERE merchant_id = 'default'",
        );
        const previous = { sequence: Number(rows[0].audit_sequence), hash: rows[0].audit_hash };
        const draft = {
          at: new Date().toISOString(),
          actor: 'mallory',
          action: 'APPROVED' as const,
          referenceId: 'forged',
          status: null,
          amount: '10',
          currency: 'ZMW',
          detail: null,
        };
        const next = previous.sequence + 1;
        const hash = chainHash(previous.hash, next, draft);
        const forged = {
          sequence: next,
          ...draft,
          reference_id: draft.referenceId,
          hash,
          previous_hash: previous.hash,
          mac: 'f'.repeat(64),
        };
        await client.query("SELECT audit_append('default', $1::json)", [JSON.stringify([forged])]);
        return next;
      });
      const result = await auditVerify(databaseEnv().DATABASE_URL, [], { AUDIT_SIGNING_KEY: signingKey });
      expect(result.output).toMatch(new RegExp(`merchant default: the entry at sequence ${sequence} does not verify`));
      expect(result.code).toBe(1);
    });

    it('a genuine entry replayed through the append function, numbered and linked by the database, fails audit:verify', async () => {
      const sequence = await withClient(databaseEnv().DATABASE_URL, async (client) => {
        const { rows } = await client.query<Record<string, string | null>>(
          "SELECT * FROM audit_log WHERE merchant_id = 'default' AND entry_id IS NOT NULL ORDER BY sequence LIMIT 1",
        );
        const { sequence: _s, hash: _h, previous_hash: _p, merchant_id: _m, ...copy } = rows[0];
        await client.query("SELECT audit_append('default', $1::json)", [JSON.stringify([copy])]);
        const head = await client.query<{ audit_sequence: string }>(
          "SELECT audit_sequence FROM merchant_heads WHERE merchant_id = 'default'",
        );
        return { copied: Number(rows[0].sequence), replayed: Number(head.rows[0].audit_sequence) };
      });
      const result = await auditVerify(databaseEnv().DATABASE_URL, [], { AUDIT_SIGNING_KEY: signingKey });
      expect(result.output).toMatch(
        new RegExp(
          `merchant default: the entry at sequence ${sequence.replayed} does not verify: its id is the one of the entry at sequence ${sequence.copied}`,
        ),
      );
      expect(result.code).toBe(1);
    });

    it('says at start when one role both owns the schema and runs the gateway', async () => {
      expect(capturedLogs.join('')).not.toMatch(/DATABASE_OWNER_URL is unset/);
      const alone = await startStack({ env: { DATABASE_URL: ownerUrl(databaseEnv()), AUDIT_SIGNING_KEY: signingKey } });
      await alone.close();
      expect(capturedLogs.join('')).toMatch(/DATABASE_OWNER_URL is unset/);
    });
  },
  { needs: ['roles'] },
);
