import { DomainContext } from './disbursement.context';
import { resealed, sealState } from './payout.seal';
import { trailFacts } from './payout.trail';

/** Payouts read per page. */
const PAGE = 500;

/** What the re-seal at start did: payouts moved to the key in use, and those no key given opens. */
export interface Resealed {
  resealed: number;
  /** Sealed under a key this gateway does not hold: held for an operator until one that does sends them. */
  elsewhere: number;
}

/**
 * After a rotation of AUDIT_SIGNING_KEY (a new key first, older ones kept): every payout still to be
 * sent on a decision (held, scheduled, or sent with an unknown outcome) whose seal an older key opens
 * is sealed again under the key in use, its request, requester and decision unchanged, as one
 * conditional write (bookkeeping: nothing a client sees changes). A seal made before decisions were
 * sealed gets the decision its audit trail records. From then on only the key in use opens a seal for
 * a send, so an older key, even one that leaked, can make no seal the gateway sends on, and the older
 * private key can go (docs/operations.md). Runs at start, before the due loop; with one key, nothing to do.
 */
export async function resealUnsent(ctx: DomainContext): Promise<Resealed> {
  const done: Resealed = { resealed: 0, elsewhere: 0 };
  if (ctx.sealKeys.length === 1) return done;
  for (let after: { merchantId: string; referenceId: string } | undefined; ;) {
    const page = await ctx.store.unsent(after, PAGE);
    for (const record of page) {
      const state = sealState(ctx.sealKeys, record);
      if (state.kind !== 'elsewhere') continue;
      const trail = record.seal?.includes(':')
        ? undefined
        : (await trailFacts(ctx.records, ctx.entryKeys, record)).decision;
      let moved = false;
      await ctx.writer.change(record.merchantId, record.referenceId, (current) => {
        const next = current.seal === record.seal ? resealed(ctx.sealKeys, current, trail) : undefined;
        moved = next !== undefined;
        return next;
      });
      if (moved) done.resealed += 1;
      else done.elsewhere += 1;
    }
    if (page.length < PAGE) return done;
    const last = page[page.length - 1];
    after = { merchantId: last.merchantId, referenceId: last.referenceId };
  }
}
