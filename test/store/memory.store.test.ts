import { StoreFullError, StoreUnavailableError } from '../../src/disbursements/disbursement.ports';
import { MemoryStore } from '../../src/store/memory.store';
import { record, storeContract } from './store.contract';

storeContract('memory', async () => {
  const store = new MemoryStore();
  return { store, cleanup: () => store.close() };
});

describe('MemoryStore retention', () => {
  it('forgets records not written for the retention period, and only those', async () => {
    let clock = 0;
    const store = new MemoryStore({ retentionMs: 1_000, now: () => clock });
    await store.insertIfAbsent(record({ referenceId: 'old', nextCheckAt: new Date(0).toISOString() }));
    clock = 600;
    await store.insertIfAbsent(record({ referenceId: 'recent' }));
    clock = 1_100;
    await store.insertIfAbsent(record({ referenceId: 'new' }));
    const [old, recent, fresh] = await store.getMany('merchant-1', ['old', 'recent', 'new']);
    expect(old).toBeUndefined();
    expect(recent?.referenceId).toBe('recent');
    expect(fresh?.referenceId).toBe('new');
    expect(await store.due(new Date(10_000), 10)).toEqual([]);
    const history = await store.history('merchant-1', { limit: 10, filter: {} });
    expect(history.entries.map((e) => e.referenceId).sort()).toEqual(['new', 'recent']);
    expect(history.totalCount).toBe(2);
  });

  it('counts retention from the last write, not the first', async () => {
    let clock = 0;
    const store = new MemoryStore({ retentionMs: 1_000, now: () => clock });
    await store.insertIfAbsent(record({ referenceId: 'busy', version: 0 }));
    clock = 900;
    await store.update('merchant-1', 'busy', (r) => ({ ...r, version: r.version + 1 }));
    clock = 1_500;
    await store.insertIfAbsent(record({ referenceId: 'other' }));
    expect((await store.getMany('merchant-1', ['busy']))[0]?.version).toBe(1);
  });
});

describe('MemoryStore size limit', () => {
  const refsOf = async (store: MemoryStore, ids: string[]) =>
    (await store.getMany('merchant-1', ids)).map((r) => r?.referenceId ?? null);
  const successful = (referenceId: string) => record({ referenceId, status: 'SUCCESSFUL' });

  it('makes room for a new record by forgetting the final record written longest ago', async () => {
    let clock = 0;
    const store = new MemoryStore({ maxRecords: 3, now: () => ++clock });
    await store.insertIfAbsent(successful('final-old'));
    await store.insertIfAbsent(record({ referenceId: 'pending' }));
    await store.insertIfAbsent(successful('final-new'));
    await store.insertIfAbsent(record({ referenceId: 'fourth' }));
    expect(store.size).toBe(3);
    expect(await refsOf(store, ['final-old', 'pending', 'final-new', 'fourth'])).toEqual([
      null,
      'pending',
      'final-new',
      'fourth',
    ]);
  });

  it('orders final records by their last write: a record that just became final goes last', async () => {
    let clock = 0;
    const store = new MemoryStore({ maxRecords: 3, now: () => ++clock });
    await store.insertIfAbsent(record({ referenceId: 'settles-late' }));
    await store.insertIfAbsent(successful('final-early'));
    await store.insertIfAbsent(record({ referenceId: 'pending' }));
    await store.update('merchant-1', 'settles-late', (r) => ({ ...r, status: 'FAILED', version: r.version + 1 }));
    await store.insertIfAbsent(record({ referenceId: 'new-1' }));
    expect(await refsOf(store, ['settles-late', 'final-early'])).toEqual(['settles-late', null]);
    await store.insertIfAbsent(record({ referenceId: 'new-2' }));
    expect(await refsOf(store, ['settles-late', 'pending', 'new-1', 'new-2'])).toEqual([
      null,
      'pending',
      'new-1',
      'new-2',
    ]);
  });

  it('refuses a new record with StoreFullError when every record held is unfinished, and stores nothing', async () => {
    const store = new MemoryStore({ maxRecords: 2 });
    const unfinished = [
      record({ referenceId: 'pending' }),
      record({ referenceId: 'unknown', status: 'UNKNOWN', sending: true }),
    ];
    for (const r of unfinished) await store.insertIfAbsent(r);
    const refused = store.insertIfAbsent(record({ referenceId: 'refused' }));
    await expect(refused).rejects.toBeInstanceOf(StoreFullError);
    await expect(refused).rejects.toBeInstanceOf(StoreUnavailableError);
    expect(store.size).toBe(2);
    expect(await refsOf(store, ['pending', 'unknown', 'refused'])).toEqual(['pending', 'unknown', null]);
  });

  it('still answers an existing record when full, and updates it in place', async () => {
    const store = new MemoryStore({ maxRecords: 1 });
    const held = record({ referenceId: 'held' });
    await store.insertIfAbsent(held);
    expect(await store.insertIfAbsent({ ...held, amount: '9.00' })).toEqual(held);
    const settled = await store.update('merchant-1', 'held', (r) => ({ ...r, status: 'SUCCESSFUL', version: 2 }));
    expect(settled?.status).toBe('SUCCESSFUL');
    // Now final, it makes room for the next record.
    expect(await store.insertIfAbsent(record({ referenceId: 'next' }))).toBeUndefined();
    expect(await refsOf(store, ['held', 'next'])).toEqual([null, 'next']);
  });

  it('accepts again once an unfinished record is settled or released', async () => {
    const store = new MemoryStore({ maxRecords: 1 });
    await store.insertIfAbsent(record({ referenceId: 'claim', sending: true, status: 'UNKNOWN' }));
    await expect(store.insertIfAbsent(record({ referenceId: 'other' }))).rejects.toBeInstanceOf(StoreFullError);
    await store.remove('merchant-1', 'claim', (r) => r.sending);
    expect(await store.insertIfAbsent(record({ referenceId: 'other' }))).toBeUndefined();
  });

  it('hands out copies: changing a record read from the store changes nothing stored', async () => {
    const store = new MemoryStore();
    const r = record({ referenceId: 'copied' });
    await store.insertIfAbsent(r);
    const read = await store.get('merchant-1', 'copied');
    read?.history.push({ status: 'FAILED', source: 'CALLBACK', at: '2026-01-01T00:00:01.000Z' });
    r.status = 'FAILED';
    expect(await store.get('merchant-1', 'copied')).toEqual({ ...r, status: 'PENDING' });
  });
});
