import { ProviderError } from '../../src/disbursements/disbursement.ports';
import { NEVER_RECEIVED } from '../../src/disbursements/disbursement.record';
import { CreateScript, domain, merchant, mobileRequest } from '../support/domain';

/** Issue #35: a payout a client retries while the provider refuses it the same way stays small, and says how often. */

const T0 = Date.parse('2026-11-26T10:00:00Z');
const UNREACHABLE = 'provider unreachable (ECONNREFUSED)';
const unreachable = (): CreateScript => ({ fail: new ProviderError('unavailable', UNREACHABLE), stores: false });

/** A payout a client has seen UNKNOWN, past RESEND_AFTER_SECONDS: each retry asks, sends again, and is refused. */
async function seenUnknown() {
  let clock = T0;
  const d = domain({ now: () => new Date(clock) });
  const tick = (ms: number) => void (clock += ms);
  const request = mobileRequest();
  d.provider.script.push({ fail: new ProviderError('unknown', 'provider call timed out'), stores: false });
  await expect(d.service.create(merchant, request)).rejects.toMatchObject({ code: 'OUTCOME_UNKNOWN' });
  tick(61_000);
  const retry = async (times: number, gapMs = 1000) => {
    for (let i = 0; i < times; i += 1) {
      tick(gapMs);
      d.provider.script.push(unreachable());
      await expect(d.service.create(merchant, request)).rejects.toMatchObject({ code: 'UPSTREAM_UNAVAILABLE' });
    }
  };
  return { d, request, retry, at: () => new Date(clock).toISOString() };
}

describe('a step repeated by retries', () => {
  it('is one history entry counting how often and until when, published once', async () => {
    const { d, request, retry } = await seenUnknown();
    await retry(1);
    const first = await d.store.get(merchant.id, request.referenceId);
    await retry(4);
    const record = await d.store.get(merchant.id, request.referenceId);
    expect(record?.history.map((e) => [e.status, e.source, e.message, e.repeated, e.at, e.lastAt])).toEqual([
      [
        'UNKNOWN',
        'CREATE',
        'Outcome unknown: provider call timed out',
        undefined,
        new Date(T0).toISOString(),
        undefined,
      ],
      [
        'UNKNOWN',
        'STATUS_CHECK',
        NEVER_RECEIVED,
        5,
        new Date(T0 + 62_000).toISOString(),
        new Date(T0 + 66_000).toISOString(),
      ],
    ]);
    // A repeat is not a change: same version, nothing more published or logged.
    expect(record?.version).toBe(first?.version);
    const published = d.published.filter((r) => r.referenceId === request.referenceId);
    expect(published.map((r) => r.history.length)).toEqual([1, 2]);
    expect(await d.store.changesAfter(merchant.id, '0', 100)).toHaveLength(2);
  });

  it('the next different step is a new entry and a change again', async () => {
    const { d, request, retry } = await seenUnknown();
    await retry(3);
    await expect(d.service.create(merchant, request)).resolves.toMatchObject({ status: 'PENDING' });
    const record = await d.store.get(merchant.id, request.referenceId);
    expect(record?.history.map((e) => [e.status, e.repeated])).toEqual([
      ['UNKNOWN', undefined],
      ['UNKNOWN', 3],
      ['PENDING', undefined],
    ]);
    expect(d.provider.creates).toHaveLength(5);
  });
});
