import { AuditAction, AuditEntry } from './audit.entry';
import { DisbursementStatus, isFinal } from './disbursement.model';

/** What the entries so far say of one payout's current life (from its latest CREATE_REQUESTED). */
interface Life {
  /** The status of its latest entry that gave one. */
  status?: DisbursementStatus;
  /** The entry that made it final, if one did. */
  ended?: { status: DisbursementStatus; sequence: number };
}

/**
 * The rules a payout's states follow, checked over its entries in chain order (audit.verify.ts): a
 * final status is final (no later entry records another); nothing is sent while it awaits approval
 * (an APPROVED entry moves it on first); and a send the gateway refused because the stored record was
 * not what was requested and decided (SEND_REFUSED) is a record changed outside the gateway. Keeps
 * one small state per payout seen.
 */
export class PayoutLifecycles {
  private readonly lives = new Map<string, Life>();

  /** Why `entry` breaks its payout's rules, or undefined; entries about no payout pass. */
  check(entry: AuditEntry): string | undefined {
    const { referenceId, action, status } = entry;
    if (referenceId === null) return undefined;
    if (action === AuditAction.CREATE_REQUESTED) this.lives.set(referenceId, {});
    const life = this.lives.get(referenceId) ?? {};
    const why = this.breach(life, entry);
    if (status !== null) {
      life.status = status;
      if (!life.ended && isFinal(status)) life.ended = { status, sequence: entry.sequence };
    }
    this.lives.set(referenceId, life);
    return why && `payout ${referenceId}: ${why}`;
  }

  private breach(life: Life, { action, status }: AuditEntry): string | undefined {
    if (action === AuditAction.SEND_REFUSED)
      return 'the gateway refused to send it because its stored record was not what was requested and decided: it was changed outside the gateway';
    if (life.ended && status !== null && status !== life.ended.status)
      return `it records ${status} after it ended ${life.ended.status} at sequence ${life.ended.sequence}`;
    if (action === AuditAction.SENT && life.status === 'AWAITING_APPROVAL')
      return 'it was sent while it awaited approval, with no APPROVED entry before the send';
    return undefined;
  }
}
