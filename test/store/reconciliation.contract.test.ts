import { Discrepancy, ReconciliationRun } from '../../src/disbursements/reconciliation.model';
import { databasePerTest, describeEngines } from '../support/engines';

const T0 = Date.parse('2026-11-29T10:00:00Z');

const run = (id: string, merchantId = 'm-1', startedAt = T0): ReconciliationRun => ({
  id,
  merchantId,
  from: T0 - 3600_000,
  to: T0,
  state: 'RUNNING',
  startedAt,
  total: 3,
  checked: 0,
});

const missing: Discrepancy = {
  referenceId: 'r-1',
  kind: 'MISSING_AT_PROVIDER',
  gatewayStatus: 'PENDING',
  providerStatus: null,
  resolved: false,
};
const differs: Discrepancy = {
  referenceId: 'r-2',
  kind: 'STATUS_DIFFERS',
  gatewayStatus: 'PENDING',
  providerStatus: 'SUCCESSFUL',
  resolved: true,
};

/** Every statement of the reconciliation store, on each engine: the values each takes reach their places. */
describeEngines('reconciliation runs', (engine) => {
  const db = databasePerTest(engine);

  it('keeps one running run per merchant, leases it to one holder at a time, saves it with what it found', async () => {
    const runs = db().runs();
    expect(await runs.create(run('run-1'))).toBeUndefined();
    expect(await runs.create(run('run-2'))).toEqual(run('run-1'));
    expect(await runs.create(run('run-3', 'm-2', T0 + 1))).toBeUndefined();
    expect(await runs.get('m-1', 'run-1')).toEqual(run('run-1'));
    expect(await runs.get('m-2', 'run-1')).toBeUndefined();

    // The earliest started first; a held run is not leased again until its lease ends.
    expect((await runs.lease(T0, T0 + 1000))?.id).toBe('run-1');
    expect((await runs.lease(T0 + 1, T0 + 1000))?.id).toBe('run-3');
    expect(await runs.lease(T0 + 2, T0 + 1000)).toBeUndefined();
    expect((await runs.lease(T0 + 1000, T0 + 2000))?.id).toBe('run-1');

    const progressed = { ...run('run-1'), checked: 2 };
    await runs.save(progressed, [differs, missing]);
    // Saving let go of the lease: run-1, started first, is leased again before its lease would have ended.
    expect(await runs.lease(T0 + 1001, T0 + 1500)).toEqual(progressed);
    // Saved again with one already found: it stays once.
    const done: ReconciliationRun = { ...progressed, checked: 3, state: 'DONE', finishedAt: T0 + 5000 };
    await runs.save(done, [missing]);
    expect(await runs.get('m-1', 'run-1')).toEqual(done);
    expect(await runs.discrepancies('run-1')).toEqual([missing, differs]);
    expect(await runs.discrepancies('run-3')).toEqual([]);
    expect(await runs.lastDone('m-1')).toEqual(done);
    expect(await runs.lastDone('m-2')).toBeUndefined();

    // Done, it leaves room for a new run; run-3 is still held.
    expect(await runs.create(run('run-4', 'm-1', T0 + 6000))).toBeUndefined();
    expect((await runs.lease(T0 + 999, T0 + 9000))?.id).toBe('run-4');
  });
});
