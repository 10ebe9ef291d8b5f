import { AuditAction, auditEvent } from './audit.entry';
import { DomainContext } from './disbursement.context';
import { HistoryEntry, HistoryPosition, Merchant, RecordsReader } from './disbursement.ports';
import { checkedWindow, StatementWindow } from './payout.statement';
import { Actor } from './payout.controls';

/** Payouts read per round trip while exporting: memory stays constant however long the window. */
const PAGE = 500;

/**
 * The merchant's payouts created in [from, to), oldest first, each with when the gateway first
 * recorded it, read a page at a time. Each export is an audit entry (who, the window, how many
 * rows), written when the reading ends, however it ends. The window is checked before anything is
 * read, so a bad window throws at once.
 */
export function exportPayouts(
  ctx: Pick<DomainContext, 'writer' | 'now'>,
  records: RecordsReader,
  merchant: Merchant,
  actor: Actor,
  window: StatementWindow,
): AsyncGenerator<HistoryEntry> {
  const bounds = checkedWindow(window);
  return (async function* rows() {
    let after: HistoryPosition | undefined;
    let count = 0;
    let complete = false;
    try {
      for (;;) {
        const page = await records.createdBetween(merchant.id, bounds, after, PAGE);
        for (const entry of page) {
          count += 1;
          yield entry;
        }
        if (page.length < PAGE) break;
        const last = page[page.length - 1];
        after = { at: last.at, referenceId: last.referenceId };
      }
      complete = true;
    } finally {
      const detail = `${count} payouts created from ${window.from.toISOString()} to ${window.to.toISOString()}${
        complete ? '' : ' (stopped before the end)'
      }`;
      await ctx.writer.audit(merchant.id, [
        auditEvent(AuditAction.EXPORTED, ctx.now().toISOString(), { actor: actor.name, detail }),
      ]);
    }
  })();
}
