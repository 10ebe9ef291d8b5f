import { auditEvent, AuditAction } from './audit.entry';
import { DomainContext } from './disbursement.context';

/** What a reload of the merchants' configuration did, by merchant id. */
export interface MerchantChanges {
  added: string[];
  changed: string[];
  removed: string[];
}

/** "added: a; changed: b" (only the parts that happened), or undefined when nothing changed. */
export function describeChanges(changes: MerchantChanges): string | undefined {
  const parts = (['added', 'changed', 'removed'] as const)
    .filter((part) => changes[part].length > 0)
    .map((part) => `${part}: ${changes[part].join(', ')}`);
  return parts.length === 0 ? undefined : parts.join('; ');
}

/**
 * Records a reload in the audit chain of every merchant it touched (a removed merchant's chain
 * too: it says when its credentials stopped working). Who did it is the operator; what, the ids.
 */
export async function recordMerchantsReload(
  ctx: DomainContext,
  changes: MerchantChanges,
  operator: string,
): Promise<void> {
  const detail = describeChanges(changes);
  if (detail === undefined) return;
  const at = ctx.now().toISOString();
  const touched = [...changes.added, ...changes.changed, ...changes.removed];
  for (const merchantId of touched)
    await ctx.writer.audit(merchantId, [auditEvent(AuditAction.MERCHANTS_RELOADED, at, { actor: operator, detail })]);
}
