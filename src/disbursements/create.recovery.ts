import { DomainContext } from './disbursement.context';
import { fromProviderError, outcomeUnknown, referenceConflict, storeUnavailable } from './disbursement.errors';
import { Disbursement, DisbursementRequest, ProviderRecord } from './disbursement.model';
import { Merchant, ProviderError, StoreUnavailableError } from './disbursement.ports';
import { changed, contentDiffers } from './disbursement.record';
import { withDueNextOnChange } from './disbursement.checks';
import { applyStatusUpdate } from './disbursement.status';
import { foundByCheck } from './audit.rules';
import { recordAnswered, recordUnknown, releaseClaim } from './create.settle';

/**
 * After the provider call of a send failed: decides, from how it failed (and, when that cannot tell,
 * from the provider's own record), whether the claim ends answered, UNKNOWN or released.
 */
export async function recoverFailedSend(
  ctx: DomainContext,
  merchant: Merchant,
  request: DisbursementRequest,
  claim: Disbursement,
  error: unknown,
): Promise<Disbursement> {
  const { referenceId } = request;
  if (error instanceof StoreUnavailableError) {
    // Thrown before the call left (the provider budget, kept in the gateway's store, could not be spent).
    await releaseClaim(ctx, claim, false, `not sent: ${error.message}`);
    throw storeUnavailable(referenceId);
  }
  const kind = error instanceof ProviderError ? error.kind : 'unknown';
  // A 5xx came after the request arrived, so the provider may have taken it; a 400 may be the provider
  // refusing a referenceId it already has (a claim lost with an emptied store): its own record tells.
  if (kind === 'server-error' || kind === 'rejected')
    return checkRefusal(ctx, merchant, request, claim, error as ProviderError);
  if (kind === 'unknown') {
    await recordUnknown(
      ctx,
      merchant,
      referenceId,
      error instanceof Error ? error.message : 'the provider call failed',
    );
    throw outcomeUnknown(referenceId);
  }
  // auth, rate-limited, unavailable: the provider created nothing; an HTTP status says it answered.
  const providerReplied = error instanceof ProviderError && error.details.status !== undefined;
  const why = error instanceof Error ? error.message : 'the provider call failed';
  await releaseClaim(ctx, claim, providerReplied, providerReplied ? `refused: ${why}` : `not sent: ${why}`);
  throw fromProviderError(error, referenceId);
}

/**
 * After a 5xx or a 400, check-status decides: the provider has this payout → its record is the answer;
 * it has another payout under this referenceId → REFERENCE_CONFLICT; it has none after a 5xx or a
 * refusal of the referenceId → UNKNOWN (OUTCOME_UNKNOWN); none after another 400 → the refusal stands
 * and the claim is released; it cannot be asked → OUTCOME_UNKNOWN.
 */
async function checkRefusal(
  ctx: DomainContext,
  merchant: Merchant,
  request: DisbursementRequest,
  claim: Disbursement,
  error: ProviderError,
): Promise<Disbursement> {
  const { referenceId } = request;
  let found: ProviderRecord | undefined;
  try {
    found = await ctx.provider.checkStatus(merchant, referenceId, 'create');
  } catch {
    await recordUnknown(ctx, merchant, referenceId, error.message);
    throw outcomeUnknown(referenceId);
  }
  if (!found) {
    // "Not found" right after a 5xx, or after a refusal of the referenceId itself, is no proof: the
    // provider may still be taking the payout in. It stays UNKNOWN until RESEND_AFTER_SECONDS have passed.
    if (error.kind === 'server-error' || refusesReference(error)) {
      await recordUnknown(ctx, merchant, referenceId, `${unknownWhy(error)}, and does not show the payout yet`);
      throw outcomeUnknown(referenceId);
    }
    await releaseClaim(ctx, claim, true, `refused: ${error.message}; the provider has no such payout`);
    throw fromProviderError(error, referenceId);
  }
  const differs = contentDiffers(request, found);
  if (differs.length === 0) return recordAnswered(ctx, merchant, referenceId, found, 'STATUS_CHECK', true);
  await becomeProviders(ctx, merchant, claim, found).catch(() => undefined);
  throw referenceConflict(referenceId, differs);
}

function unknownWhy(error: ProviderError): string {
  return error.kind === 'server-error' ? error.message : `refused the referenceId (${error.message})`;
}

/**
 * A 400 about the referenceId itself: what a provider that refuses repeats answers (upstream-facts: the
 * answer to a duplicate is not documented, so the field it names, or its message, is what tells).
 */
function refusesReference(error: ProviderError): boolean {
  return error.kind === 'rejected' && (error.details.field === 'referenceId' || /reference/i.test(error.message));
}

/** The provider holds another payout under this referenceId: the record becomes that payout, with no request of ours. */
export async function becomeProviders(
  ctx: DomainContext,
  merchant: Merchant,
  claim: Disbursement,
  theirs: ProviderRecord,
): Promise<void> {
  const audit = foundByCheck(true, 'the provider holds another payout under this referenceId: the record is that one');
  await ctx.writer.change(
    merchant.id,
    claim.referenceId,
    (current) => {
      if (current.fingerprint !== claim.fingerprint) return undefined;
      const now = ctx.now();
      const at = now.toISOString();
      const base: Disbursement = {
        ...current,
        request: undefined,
        fingerprint: undefined,
        sending: false,
        amount: theirs.amount ?? current.amount,
        currency: theirs.currency ?? current.currency,
        accountNumber: theirs.accountNumber ?? current.accountNumber,
        narration: theirs.narration,
      };
      const next =
        applyStatusUpdate(base, { record: theirs, source: 'STATUS_CHECK', at }) ?? changed(current, base, at);
      return withDueNextOnChange(current, next, now, ctx.policy);
    },
    audit,
  );
}
