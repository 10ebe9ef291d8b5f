import { AuditAction, AuditDraft } from './audit.entry';
import { AuditTail, Disbursement } from './disbursement.model';

/**
 * A client retrying a payout the provider keeps refusing would add one identical audit entry per
 * retry. The first of a burst is written; identical ones that follow within BURST_MS of it are
 * counted on the payout (`auditTail`) instead, and written as one summary entry just before the
 * payout's next different entry (or the next identical one after the burst). A send is never
 * counted: each one left the gateway. The chain stays append-only: nothing written is changed.
 */
export const BURST_MS = 3600_000;

/** The longest detail the chain keeps (audit.entry.ts). */
const DETAIL_LIMIT = 500;

const isAction = (action: string): action is AuditAction => Object.hasOwn(AuditAction, action);

const sameContent = (tail: AuditTail, draft: AuditDraft) =>
  tail.action === draft.action &&
  tail.actor === draft.actor &&
  tail.status === draft.status &&
  tail.detail === draft.detail;

/** The entry that stands for the identical entries counted on `tail`, at the last of them; none when none were. */
export function burstSummary(record: Disbursement, tail: AuditTail | undefined): AuditDraft[] {
  if (!tail || tail.count === 0 || !isAction(tail.action)) return [];
  const times = tail.count === 1 ? 'once more' : `${tail.count} more times`;
  const detail = `the same again ${times}, from ${tail.firstAt} to ${tail.lastAt}: ${tail.detail ?? ''}`;
  return [
    {
      at: tail.lastAt ?? tail.at,
      actor: tail.actor,
      action: tail.action,
      referenceId: record.referenceId,
      status: tail.status,
      amount: record.amount,
      currency: record.currency,
      detail: detail.slice(0, DETAIL_LIMIT),
    },
  ];
}

/**
 * The entries a write of `before` into `after` writes, with repeats in a burst counted rather than
 * written, and `after` with the payout's tail as it now stands.
 */
export function countRepeats(
  before: Disbursement,
  after: Disbursement,
  drafts: readonly AuditDraft[],
): { record: Disbursement; entries: AuditDraft[] } {
  let tail = before.auditTail;
  const entries: AuditDraft[] = [];
  for (const draft of drafts) {
    if (draft.referenceId !== after.referenceId) {
      entries.push(draft);
      continue;
    }
    const inBurst = tail !== undefined && Date.parse(draft.at) - Date.parse(tail.at) < BURST_MS;
    if (tail && inBurst && draft.action !== AuditAction.SENT && sameContent(tail, draft)) {
      tail = { ...tail, count: tail.count + 1, firstAt: tail.firstAt ?? draft.at, lastAt: draft.at };
      continue;
    }
    entries.push(...burstSummary(after, tail), draft);
    const { action, actor, status, detail, at } = draft;
    tail = { action, actor, status, detail, at, count: 0 };
  }
  return { record: tail === before.auditTail ? after : { ...after, auditTail: tail }, entries };
}
