import { START_POSITION } from '../../src/disbursements/disbursement.ports';
import { databasePerTest, describeEngines } from '../support/engines';
import { bump, record, shownRecord } from './store.fixtures';

/** The change log behind the store's interface: what `disbursementEvents` reads, the same on every engine. */
describeEngines('the change log', (engine) => {
  const db = databasePerTest(engine);
  const positions = (changes: { position: string }[]) => changes.map((c) => c.position);

  it('starts at START_POSITION, and numbers what a client sees 1, 2, 3 in the order applied', async () => {
    const store = db().store();
    expect(START_POSITION).toBe('0');
    expect(await store.latestChange('m1')).toBe(START_POSITION);
    const [a, b] = [record({ merchantId: 'm1' }), record({ merchantId: 'm1' })];
    await store.insertIfAbsent(a);
    await store.insertIfAbsent(b);
    expect(await store.latestChange('m1')).toBe(START_POSITION);
    await store.update('m1', b.referenceId, bump({ status: 'FAILED' }));
    // Bookkeeping: the version stays, nothing is logged.
    await store.update('m1', a.referenceId, (current) => ({ ...current, checkAttempts: current.checkAttempts + 1 }));
    await store.update('m1', a.referenceId, bump({ status: 'SUCCESSFUL' }));
    const shown = shownRecord({ merchantId: 'm1' });
    await store.insertIfAbsent(shown);

    const changes = await store.changesAfter('m1', START_POSITION, 10);
    expect(changes.map((c) => [c.position, c.record])).toEqual([
      ['1', { ...b, status: 'FAILED', version: 2 }],
      ['2', { ...a, status: 'SUCCESSFUL', version: 2, checkAttempts: 1 }],
      ['3', shown],
    ]);
    expect(await store.latestChange('m1')).toBe('3');
    expect(await store.changesAfter('m1', '1', 10)).toEqual(changes.slice(1));
    expect(await store.changesAfter('m1', '1', 1)).toEqual([changes[1]]);
    expect(await store.changesAfter('m1', '1', 0)).toEqual([]);
    expect(await store.changesAfter('m1', '3', 10)).toEqual([]);
    expect(await store.changesAfter('m1', '99', 10)).toEqual([]);
    expect(await store.hasChange('m1', '1')).toBe(true);
    expect(await store.hasChange('m1', '3')).toBe(true);
    expect(await store.hasChange('m1', '4')).toBe(false);
    expect(await store.hasChange('m1', START_POSITION)).toBe(false);
  });

  it("numbers each merchant's changes on their own, and keeps them apart", async () => {
    const store = db().store();
    const [mine, theirs] = [record({ merchantId: 'm1' }), record({ merchantId: 'm2' })];
    await store.insertIfAbsent(mine);
    await store.insertIfAbsent(theirs);
    await store.update('m1', mine.referenceId, bump({ status: 'SUCCESSFUL' }));
    await store.update('m1', mine.referenceId, bump({ message: 'again' }));
    await store.update('m2', theirs.referenceId, bump({ status: 'FAILED' }));
    expect(positions(await store.changesAfter('m1', START_POSITION, 10))).toEqual(['1', '2']);
    const [change] = await store.changesAfter('m2', START_POSITION, 10);
    expect(change).toEqual({ position: '1', record: { ...theirs, status: 'FAILED', version: 2 } });
    expect(await store.latestChange('m2')).toBe('1');
    expect(await store.hasChange('m2', '2')).toBe(false);
    expect(await store.changesAfter('m3', START_POSITION, 10)).toEqual([]);
    expect(await store.latestChange('m3')).toBe(START_POSITION);
  });

  it('has no gap and no repeat under concurrent writes from two instances', async () => {
    const [a, b] = [db().store(), db().store()];
    const records = Array.from({ length: 4 }, () => record({ merchantId: 'm1' }));
    for (const r of records) await a.insertIfAbsent(r);
    await Promise.all(
      Array.from({ length: 40 }, (_, i) => (i % 2 ? a : b).update('m1', records[i % 4].referenceId, bump())),
    );
    const changes = await b.changesAfter('m1', START_POSITION, 100);
    expect(positions(changes)).toEqual(Array.from({ length: 40 }, (_, i) => String(i + 1)));
    // Each payout's versions appear in order: a later position never holds an older record.
    for (const r of records) {
      const versions = changes.filter((c) => c.record.referenceId === r.referenceId).map((c) => c.record.version);
      expect(versions).toEqual(Array.from({ length: 10 }, (_, i) => i + 2));
    }
    expect(await a.latestChange('m1')).toBe('40');
  });

  it('pages through a long log in order', async () => {
    const store = db().store();
    const r = record({ merchantId: 'm1' });
    await store.insertIfAbsent(r);
    for (let i = 0; i < 25; i += 1) await store.update('m1', r.referenceId, bump());
    const read: string[] = [];
    let after = START_POSITION;
    for (;;) {
      const page = await store.changesAfter('m1', after, 10);
      if (page.length === 0) break;
      read.push(...positions(page));
      after = page[page.length - 1].position;
    }
    expect(read).toEqual(Array.from({ length: 25 }, (_, i) => String(i + 1)));
  });
});
