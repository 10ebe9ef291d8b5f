import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { launchGateway, workingFolder } from '../support/process';
import { CREATE_MOBILE, DISBURSEMENT_FIELDS, eventually, gql, mobileInput } from '../support/stack';
import { PayoutRow } from '../support/fixtures';

const ONE = `query One($r: ID!) { disbursement(referenceId: $r) { ${DISBURSEMENT_FIELDS} } }`;
/** No DATABASE_URL: the embedded file in the working folder, and the embedded sandbox. */
const ENV = { PORT: '0', SANDBOX_PORT: '0', SANDBOX_SETTLE_MS: '100' };

describe('DATABASE_URL unset', () => {
  it('keeps payouts in .data/gateway.sqlite of the working folder, named at startup, across a killed process', async () => {
    const cwd = workingFolder();
    const file = join(cwd, '.data', 'gateway.sqlite');
    const first = await launchGateway(ENV, cwd);
    expect(first.output()).toContain(`records kept in the SQLite file ${file}`);
    expect(existsSync(file)).toBe(true);

    const settled = mobileInput();
    const pending = mobileInput({ accountNumber: '260971234222' });
    for (const input of [settled, pending]) {
      const created = await gql<{ createMobileMoneyDisbursement: PayoutRow }>(first.graphqlUrl, CREATE_MOBILE, {
        input,
      });
      expect(created.data?.createMobileMoneyDisbursement.status).toBe('PENDING');
    }
    const read = async (url: string, input: Record<string, unknown>) =>
      (await gql<{ disbursement: PayoutRow | null }>(url, ONE, { r: input.referenceId })).data?.disbursement;
    const before = await eventually(async () => {
      const rec = await read(first.graphqlUrl, settled);
      return rec?.status === 'SUCCESSFUL' ? rec : undefined;
    });
    expect(before.history.map((e) => e.status)).toEqual(['PENDING', 'SUCCESSFUL']);
    const pendingBefore = await read(first.graphqlUrl, pending);

    // A crash, not a clean stop: what was committed must be in the file already.
    first.child.kill('SIGKILL');
    await first.stop();
    const again = await launchGateway(ENV, cwd);
    try {
      expect(again.output()).toContain(`records kept in the SQLite file ${file}`);
      expect(await read(again.graphqlUrl, settled)).toEqual(before);
      expect(await read(again.graphqlUrl, pending)).toEqual(pendingBefore);
      const retry = await gql(again.graphqlUrl, CREATE_MOBILE, { input: { ...settled, amount: '1.00' } });
      expect(retry.errors?.[0]?.extensions?.code).toBe('REFERENCE_CONFLICT');
    } finally {
      expect(await again.stop()).toBe(0);
    }
  }, 60_000);
});
