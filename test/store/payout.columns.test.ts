import { Disbursement } from '../../src/disbursements/disbursement.model';
import { createdAtOf, KEPT_COLUMNS, payoutColumns, WRITTEN_COLUMNS } from '../../src/store/payout.row';
import { databasePerTest, describeEngines } from '../support/engines';
import { bump, record } from './store.fixtures';

const WRITTEN_AT = Date.UTC(2026, 0, 2);

/** A row's value as the declaration computes it: PostgreSQL answers a bigint as text. */
const asDeclared = (value: unknown) => (typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value);

describeEngines('the payout row, its columns declared once (payout.row.ts)', (engine) => {
  const db = databasePerTest(engine);

  async function row(): Promise<Record<string, unknown>> {
    const rows = await db().rows('SELECT * FROM payouts');
    expect(rows).toHaveLength(1);
    return rows[0];
  }

  /** Every declared column holds what the declaration computes from the record the store answers. */
  function expectWritten(stored: Record<string, unknown>, record: Disbursement): void {
    const declared = payoutColumns(record, WRITTEN_AT);
    for (const name of WRITTEN_COLUMNS) {
      if (name === 'record') expect(JSON.parse(String(stored.record))).toEqual(record);
      else expect({ [name]: asDeclared(stored[name]) }).toEqual({ [name]: declared[name] });
    }
  }

  it('has exactly the declared columns, no more and no fewer', async () => {
    await db().store().insertIfAbsent(record());
    expect(Object.keys(await row()).sort()).toEqual([...KEPT_COLUMNS, ...WRITTEN_COLUMNS].sort());
  });

  it('writes every declared column on insert, and each again on update', async () => {
    const store = db().store({ now: () => WRITTEN_AT });
    const claimed = record({ due: { kind: 'RECHECK', at: '2026-01-01T00:05:00.000Z' } });
    await store.insertIfAbsent(claimed);
    const inserted = await row();
    expectWritten(inserted, claimed);
    expect(asDeclared(inserted.created_at)).toBe(createdAtOf(claimed));
    expect(asDeclared(inserted.revision)).toBe(1);

    const settled = await store.update(
      claimed.merchantId,
      claimed.referenceId,
      bump({ status: 'SUCCESSFUL', channel: 'BANK', currency: 'USD', amount: '9.99', due: undefined }),
    );
    const updated = await row();
    expectWritten(updated, settled!);
    expect(asDeclared(updated.created_at)).toBe(createdAtOf(claimed));
    expect(asDeclared(updated.revision)).toBe(2);
  });
});
