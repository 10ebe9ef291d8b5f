import { MemoryStore } from '../../src/store/memory.store';
import { record, storeContract } from './store.contract';

storeContract('memory', async () => {
  const store = new MemoryStore();
  return { store, cleanup: () => store.close() };
});

describe('MemoryStore retention', () => {
  it('forgets records not written for the retention period, and only those', async () => {
    let clock = 0;
    const store = new MemoryStore(1_000, () => clock);
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
    const store = new MemoryStore(1_000, () => clock);
    await store.insertIfAbsent(record({ referenceId: 'busy', version: 0 }));
    clock = 900;
    await store.update('merchant-1', 'busy', (r) => ({ ...r, version: r.version + 1 }));
    clock = 1_500;
    await store.insertIfAbsent(record({ referenceId: 'other' }));
    expect((await store.getMany('merchant-1', ['busy']))[0]?.version).toBe(1);
  });
});
