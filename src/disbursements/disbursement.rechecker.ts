import { DomainContext } from './disbursement.context';
import { Disbursement, ProviderRecord, NOTHING_DUE } from './disbursement.model';
import { Merchant } from './disbursement.ports';
import { markNeverReceived } from './disbursement.record';
import { applyProviderAnswer } from './disbursement.answer';
import { auditedAs } from './disbursement.context';
import {
  claimEnded,
  notFoundMeansNeverReceived,
  notFoundYet,
  redue,
  withDueNext,
  stillSending,
} from './disbursement.checks';

/**
 * The due loop's step for a status check (`RECHECK`): ask the provider and apply the answer.
 * A payout the provider does not have is asked about again while its last send may still be on its
 * way in (RESEND_AFTER_SECONDS); after that it is no longer checked (an UNKNOWN one says so in its
 * history): only the client's retry of the same request may send it, after asking once more.
 */
export async function recheckStep(
  ctx: DomainContext,
  merchant: Merchant,
  record: Disbursement,
): Promise<Disbursement | undefined> {
  const { referenceId } = record;
  const { writer, policy } = ctx;
  // Only an open payout sent (or being sent) has a provider record to ask about; any other is due
  // for what its status calls for.
  if (record.status !== 'PENDING' && record.status !== 'UNKNOWN')
    return (await writer.change(merchant.id, referenceId, (current) => redue(current, ctx.now(), policy))).stored;
  let answer: ProviderRecord | undefined;
  try {
    answer = await ctx.provider.checkStatus(merchant, referenceId, 'reconcile');
  } catch {
    const now = ctx.now();
    const written = await writer.change(merchant.id, referenceId, (current) =>
      withDueNext(
        {
          ...(stillSending(current, now, policy) ? current : claimEnded(current, policy)),
          checkAttempts: current.checkAttempts + 1,
        },
        now,
        policy,
      ),
    );
    return written.stored;
  }
  const found = answer;
  const written = await writer.change(
    merchant.id,
    referenceId,
    (current) => {
      const now = ctx.now();
      if (stillSending(current, now, policy)) return undefined;
      if (!found) {
        if (!notFoundMeansNeverReceived(current, now, policy)) return notFoundYet(current, now, policy);
        if (current.status === 'UNKNOWN') return markNeverReceived(current, now.toISOString());
        return { ...current, sending: false, ...NOTHING_DUE };
      }
      const next = applyProviderAnswer(current, { record: found, source: 'STATUS_CHECK' }, now, policy, true);
      if (next && next.version !== current.version) return next;
      // The provider's word changed nothing: ask again later, a little later each time.
      return withDueNext({ ...current, sending: false, checkAttempts: current.checkAttempts + 1 }, now, policy);
    },
    auditedAs('STATUS_CHECK'),
  );
  return written.stored;
}
