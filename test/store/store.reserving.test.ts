import { databasePerTest, describeEngines } from '../support/engines';
import { record } from './store.fixtures';

// insertReserving's own transaction on each engine: on the server engine its lock key once carried a NUL,
// which the server's text refused, so no reservation could be held there.
describeEngines('DisbursementStore.insertReserving', (engine) => {
  const db = databasePerTest(engine);
  const reservation = { day: '2026-01-01', currency: 'ZMW', actorId: 'alice', minor: 500 };

  it('stores a record holding a reservation, and holds it', async () => {
    const store = db().store();
    const held = record({ reservation });
    expect(await store.insertReserving(held, { dailyMinor: 500 })).toEqual({});
    expect(await store.get('merchant-1', held.referenceId)).toEqual(held);
    expect(await store.reserved('merchant-1', '2026-01-01', 'ZMW', 'alice')).toEqual({ merchant: 500, actor: 500 });
  });
});
