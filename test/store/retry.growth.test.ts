import { Merchant, ProviderError } from '../../src/disbursements/disbursement.ports';
import { DisbursementService } from '../../src/disbursements/disbursement.service';
import { databasePerTest, describeEngines } from '../support/engines';
import { FakeProvider, merchant, mobileRequest } from '../support/domain';
import { TEST_AUDIT_KEYS } from '../support/chain-key';

/**
 * Issue #35: a client retrying one payout while the provider cannot be reached must not grow the
 * database without bound. The domain runs over the real store of each engine; the provider answers
 * check-status "not found" and refuses every create before it is sent.
 */
describeEngines('retries of one payout while the provider is unreachable', (engine) => {
  const db = databasePerTest(engine);
  const RETRIES = 500;

  function gateway() {
    let clock = Date.parse('2026-11-26T10:00:00Z');
    const provider = new FakeProvider();
    const store = db().store({ now: () => clock });
    const service = new DisbursementService({
      store,
      records: store,
      book: store,
      runs: db().runs(),
      events: db().events(),
      provider,
      upstreamTimeoutMs: 15_000,
      resendAfterMs: 60_000,
      claimPollMs: 5,
      recheck: { unknownAfterMs: 1000, pendingAfterMs: 60_000, maxDelayMs: 600_000 },
      now: () => new Date(clock),
      auditKeys: TEST_AUDIT_KEYS,
    });
    const tick = (ms: number) => void (clock += ms);
    return { provider, store, service, tick };
  }

  const unreachable = () => ({
    fail: new ProviderError('unavailable', 'provider unreachable (ECONNREFUSED)'),
    stores: false,
  });

  async function retry(g: ReturnType<typeof gateway>, m: Merchant, request: ReturnType<typeof mobileRequest>) {
    for (let i = 0; i < RETRIES; i += 1) {
      g.tick(1000);
      g.provider.script.push(unreachable());
      await expect(g.service.create(m, request)).rejects.toMatchObject({ code: 'UPSTREAM_UNAVAILABLE' });
    }
  }

  it(`${RETRIES} retries of a payout already seen UNKNOWN keep its record under 16 KB and the database's growth under 1.5 MB`, async () => {
    const g = gateway();
    const request = mobileRequest();
    g.provider.script.push({ fail: new ProviderError('unknown', 'provider call timed out'), stores: false });
    await expect(g.service.create(merchant, request)).rejects.toMatchObject({ code: 'OUTCOME_UNKNOWN' });
    g.tick(61_000); // past RESEND_AFTER_SECONDS: "not found" now means never received, so each retry sends
    const before = await db().bytes();

    await retry(g, merchant, request);

    const record = await g.store.get(merchant.id, request.referenceId);
    expect(record).toMatchObject({ status: 'UNKNOWN', sending: false });
    expect(JSON.stringify(record).length).toBeLessThan(16 * 1024);
    expect((await db().bytes()) - before).toBeLessThan(1.5 * 1024 * 1024);
    // Nothing was lost: once the provider answers, the same request sends it.
    await expect(g.service.create(merchant, request)).resolves.toMatchObject({ status: 'PENDING' });
    expect(g.provider.creates).toHaveLength(RETRIES + 2);
  });

  it(`${RETRIES} retries of a payout never sent keep the database's growth under 1.5 MB`, async () => {
    const g = gateway();
    const request = mobileRequest();
    const before = await db().bytes();

    await retry(g, merchant, request);

    expect(await g.store.get(merchant.id, request.referenceId)).toBeUndefined();
    expect((await db().bytes()) - before).toBeLessThan(1.5 * 1024 * 1024);
  });
});
