import { databasePerTest, describeEngines } from '../support/engines';

// Client quotas: in memory for an embedded file's one process, in the database where replicas share it.
describeEngines('ClientRateLimit', (engine) => {
  const db = databasePerTest(engine);

  it("lets a client through up to its quota a minute, then says how long to wait, without touching another's", async () => {
    const limit = db().rateLimit(3);
    for (let i = 0; i < 3; i += 1) expect(await limit.retryAfter('t:alice')).toBeUndefined();
    const wait = await limit.retryAfter('t:alice');
    expect(wait).toBeGreaterThanOrEqual(1);
    expect(wait).toBeLessThanOrEqual(60);
    expect(await limit.retryAfter('t:bob')).toBeUndefined();
  });

  it('counts an operation by its points', async () => {
    const limit = db().rateLimit(5);
    expect(await limit.retryAfter('t:alice', 3)).toBeUndefined();
    expect(await limit.retryAfter('t:alice', 3)).toBeGreaterThanOrEqual(1);
    expect(await limit.retryAfter('t:alice', 2)).toBeGreaterThanOrEqual(1);
  });

  it('limits nothing at 0 a minute', async () => {
    const limit = db().rateLimit(0);
    for (let i = 0; i < 100; i += 1) expect(await limit.retryAfter('t:alice')).toBeUndefined();
  });
});

describeEngines(
  'ClientRateLimit across replicas',
  (engine) => {
    const db = databasePerTest(engine);

    it('gives two limiters on one database one quota', async () => {
      const [a, b] = [db().rateLimit(4), db().rateLimit(4)];
      const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 ? a : b).retryAfter('t:alice')));
      expect(answers.filter((wait) => wait === undefined)).toHaveLength(4);
      expect(await a.retryAfter('t:alice')).toBeGreaterThanOrEqual(1);
      expect(await b.retryAfter('t:alice')).toBeGreaterThanOrEqual(1);
      expect(await b.retryAfter('t:bob')).toBeUndefined();
    });
  },
  { needs: ['replicas'] },
);
