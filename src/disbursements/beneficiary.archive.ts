import { AuditAction, auditOf } from './audit.entry';
import { BeneficiaryContext } from './beneficiary.create';
import { Beneficiary, beneficiaryAudit, describeAccount } from './beneficiary.model';
import { noSuchBeneficiary } from './disbursement.errors';
import { Disbursement } from './disbursement.model';
import { DisbursementStore, HistoryPosition, Merchant } from './disbursement.ports';
import { cancelledUnsent } from './disbursement.record';
import { RecordWriter } from './disbursement.writer';
import { Actor } from './payout.controls';

/** What archiving works with: the book, and the payouts it ends. */
export type ArchiveContext = BeneficiaryContext & { store: DisbursementStore; writer: RecordWriter };

/** A beneficiary archived, and the referenceIds of its open payouts the archive cancelled. */
export interface Archived {
  beneficiary: Beneficiary;
  cancelled: string[];
}

/** Payouts decided but not sent: what an archive ends. */
const OPEN = ['AWAITING_APPROVAL', 'SCHEDULED'] as const;

/**
 * Archives a beneficiary: never payable again, audited BENEFICIARY_ARCHIVED. Its payouts awaiting
 * approval or scheduled are then cancelled, each audited CANCELLED, never sent; payouts already sent
 * stay as they are. Archiving again changes nothing but cancels any such payout still open. A send
 * that races the archive re-checks the beneficiary first (send.recheck.ts).
 */
export async function archiveBeneficiary(
  ctx: ArchiveContext,
  merchant: Merchant,
  id: string,
  actor: Actor,
): Promise<Archived> {
  const { stored } = await ctx.book.updateBeneficiary(merchant.id, id, (current) => {
    if (current.status === 'ARCHIVED') return undefined;
    const at = ctx.now().toISOString();
    const next: Beneficiary = { ...current, status: 'ARCHIVED', updatedAt: at };
    const what = `${describeAccount(current.details)} archived; its payouts awaiting approval or scheduled are cancelled`;
    return {
      beneficiary: next,
      audit: [beneficiaryAudit(AuditAction.BENEFICIARY_ARCHIVED, next, actor.name, at, what)],
    };
  });
  if (!stored) throw noSuchBeneficiary(id);
  return { beneficiary: stored, cancelled: await cancelOpenPayouts(ctx, merchant, id, actor) };
}

async function cancelOpenPayouts(ctx: ArchiveContext, merchant: Merchant, id: string, actor: Actor) {
  const cancelled: string[] = [];
  let after: HistoryPosition | undefined;
  for (;;) {
    const page = await ctx.store.history(merchant.id, { after, limit: 100, filter: { statuses: OPEN } });
    for (const { record } of page.entries) {
      if (record.beneficiaryId !== id) continue;
      const written = await ctx.writer.change(
        merchant.id,
        record.referenceId,
        (current) => (isOpenFor(current, id) ? archivedPayee(current, id, actor, ctx.now()) : undefined),
        (before, next) =>
          before.version === next.version
            ? []
            : [auditOf(next, AuditAction.CANCELLED, next.updatedAt, { actor: actor.name, detail: next.message })],
      );
      if (written.changed) cancelled.push(record.referenceId);
    }
    if (!page.hasMore || !page.endPosition) return cancelled;
    after = page.endPosition;
  }
}

const isOpenFor = (record: Disbursement, id: string) =>
  record.beneficiaryId === id && !record.sending && (OPEN as readonly string[]).includes(record.status);

/** CANCELLED, never sent, because its beneficiary was archived; a held one's approval is ended as cancelled. */
function archivedPayee(current: Disbursement, id: string, actor: Actor, now: Date): Disbursement {
  const at = now.toISOString();
  const message = `Cancelled: its beneficiary ${id} was archived by ${actor.name}; never sent`;
  return cancelledUnsent(
    current,
    message,
    at,
    actor.name,
    current.approval && {
      approval: { ...current.approval, decision: 'CANCELLED', decidedBy: actor.name, decidedAt: at },
    },
  );
}
