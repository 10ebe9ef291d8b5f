import { DisbursementRequest, ProviderRecord } from '../../src/disbursements/disbursement.model';
import { ProviderError } from '../../src/disbursements/disbursement.ports';
import { domain, merchant, mobileRequest, providerRecord } from '../support/domain';

/** A payout created through the domain, still PENDING at the provider. */
async function pendingPayout(d: ReturnType<typeof domain>, overrides: Partial<DisbursementRequest> = {}) {
  const request = mobileRequest(overrides);
  await d.service.create(merchant, request);
  return request;
}

const callback = (
  request: Pick<DisbursementRequest, 'referenceId' | 'amount' | 'currency' | 'accountNumber'>,
  status: string,
): ProviderRecord => providerRecord(request, status);

describe('callbacks', () => {
  it.each([
    [
      'verified, matching content: applied as it came, no status check',
      true,
      'Successful',
      'Pending',
      { result: 'applied', status: 'SUCCESSFUL', checks: 1 },
    ],
    [
      'unverified final, confirmed by the provider: applied',
      false,
      'Successful',
      'Successful',
      { result: 'confirmed', status: 'SUCCESSFUL', checks: 2 },
    ],
    [
      'unverified final, provider still Pending: not stored, the provider wins',
      false,
      'Successful',
      'Pending',
      { result: 'overruled', status: 'PENDING', checks: 2 },
    ],
    [
      'unverified final, provider says Failed: FAILED',
      false,
      'Successful',
      'Failed',
      { result: 'overruled', status: 'FAILED', checks: 2 },
    ],
    [
      'unverified PENDING: applied, nothing to confirm',
      false,
      'Pending',
      'Pending',
      { result: 'unchanged', status: 'PENDING', checks: 1 },
    ],
  ])('%s', async (_name, verified, claimed, atProvider, expected) => {
    const d = domain();
    const request = await pendingPayout(d);
    d.provider.settle(request.referenceId, atProvider);
    const outcome = await d.service.applyCallback(merchant, callback(request, claimed), {
      verified,
      deliveryId: 'msg_1',
    });
    const stored = await d.store.get(merchant.id, request.referenceId);
    expect({ result: outcome.result, status: stored?.status, checks: d.provider.checks.length }).toEqual(expected);
    // Nothing final was published unless the provider said so.
    const finalsPublished = d.published.filter((r) => r.status === 'SUCCESSFUL');
    expect(finalsPublished.length).toBe(expected.status === 'SUCCESSFUL' ? 1 : 0);
    expect(d.mismatches).toHaveLength(expected.result === 'overruled' ? 1 : 0);
  });

  it('verified but with other content (another merchant path, or another payout): confirmed first', async () => {
    const d = domain();
    const request = await pendingPayout(d);
    const outcome = await d.service.applyCallback(merchant, callback({ ...request, amount: '5' }, 'Successful'), {
      verified: true,
    });
    expect(outcome.result).toBe('overruled');
    expect((await d.store.get(merchant.id, request.referenceId))?.status).toBe('PENDING');
  });

  it('an unverified final status is retried later when the provider cannot be asked, and nothing is stored', async () => {
    const d = domain();
    const request = await pendingPayout(d);
    d.provider.checkFailure = new ProviderError('unavailable', 'down');
    expect((await d.service.applyCallback(merchant, callback(request, 'Successful'), { verified: false })).result).toBe(
      'retry_later',
    );
    expect((await d.store.get(merchant.id, request.referenceId))?.status).toBe('PENDING');
  });
});

describe('callbacks for a referenceId the gateway has no record of', () => {
  it('keeps one the provider confirms, from the provider’s own record, after one status check', async () => {
    const d = domain();
    const request = mobileRequest();
    d.provider.have(request, 'Successful');
    const outcome = await d.service.applyCallback(merchant, callback({ ...request, amount: '5' }, 'Successful'), {
      verified: true,
    });
    expect(outcome.result).toBe('applied');
    const kept = await d.store.get(merchant.id, request.referenceId);
    expect(kept).toMatchObject({ status: 'SUCCESSFUL', amount: '150.75' });
    expect(kept?.request).toBeUndefined();
    expect(d.provider.checks).toEqual([request.referenceId]);
  });

  it.each([true, false])(
    'drops a phantom (verified: %s) after one status check, and nothing is polled later',
    async (verified) => {
      const d = domain();
      const phantoms = Array.from({ length: 60 }, () => mobileRequest());
      for (const p of phantoms)
        expect((await d.service.applyCallback(merchant, callback(p, 'Successful'), { verified })).result).toBe(
          'unknown_reference',
        );
      expect(d.provider.checks).toHaveLength(60);
      expect(await d.store.due(new Date(Date.now() + 86_400_000), 1000)).toEqual([]);
    },
  );

  it('stops checking past the orphan quota: later ones wait, with no status check', async () => {
    const d = domain({ orphansPerHour: 3 });
    const results = [];
    for (let i = 0; i < 5; i += 1)
      results.push(
        (await d.service.applyCallback(merchant, callback(mobileRequest(), 'Successful'), { verified: true })).result,
      );
    expect(results).toEqual([
      'unknown_reference',
      'unknown_reference',
      'unknown_reference',
      'retry_later',
      'retry_later',
    ]);
    expect(d.provider.checks).toHaveLength(3);
  });
});

describe('the rechecker’s step', () => {
  it('stops asking about a payout the provider says it never received', async () => {
    const d = domain();
    const request = await pendingPayout(d);
    d.provider.ledger.delete(request.referenceId);
    const record = (await d.store.get(merchant.id, request.referenceId))!;
    const after = await d.service.runDue(merchant, record);
    expect(after?.due?.at).toBeUndefined();
  });
});
