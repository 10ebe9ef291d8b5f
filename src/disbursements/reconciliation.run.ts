import { randomUUID } from 'node:crypto';
import { AuditAction } from './audit.entry';
import { whenVisible } from './audit.rules';
import { canonicalSignedDecimal } from './decimal.parse';
import { applyProviderAnswer } from './disbursement.answer';
import { DomainContext } from './disbursement.context';
import { reconciliationRunning } from './disbursement.errors';
import { Disbursement, isFinal, ProviderRecord } from './disbursement.model';
import { HistoryPosition, Merchant, ProviderError, RecordsReader } from './disbursement.ports';
import { contentDiffers } from './disbursement.record';
import { moneyText } from './money.format';
import { toMinor } from './payout.controls';
import { checkedWindow, StatementWindow } from './payout.statement';
import { BalanceReading, Discrepancy, ReconciliationRun, ReconciliationStore } from './reconciliation.model';

export interface ReconciliationParts {
  ctx: DomainContext;
  runs: ReconciliationStore;
  records: RecordsReader;
}

/** Payouts checked per step: a run moves in small steps, saved after each, so a restart loses little. */
const STEP = 25;
/** Payouts read per round trip while the balance is explained. */
const PAGE = 500;

/**
 * Starts a run over the payouts created in the window: one at a time per merchant (a second start
 * while one runs is INVALID_STATE naming it). It opens with the previous run's closing balance, or
 * reads the wallet itself at its first step.
 */
export async function startReconciliation(
  parts: ReconciliationParts,
  merchant: Merchant,
  window: StatementWindow,
): Promise<ReconciliationRun> {
  const { from, to } = checkedWindow(window);
  const lines = await parts.records.statement(merchant.id, from, to);
  const previous = await parts.runs.lastDone(merchant.id);
  const run: ReconciliationRun = {
    id: randomUUID(),
    merchantId: merchant.id,
    from,
    to,
    state: 'RUNNING',
    startedAt: parts.ctx.now().getTime(),
    total: lines.reduce((sum, line) => sum + line.count, 0),
    checked: 0,
    opening: previous?.closing,
  };
  const running = await parts.runs.create(run);
  if (running) throw reconciliationRunning(running.id);
  return run;
}

/** What stops a step early: the provider may not be asked now (try again later), or never (the run fails). */
type Stop = 'later' | 'failed';

function stopFor(error: unknown): Stop {
  return error instanceof ProviderError && error.kind === 'auth' ? 'failed' : 'later';
}

/**
 * One step of a held run: the opening reading when it has none, then up to STEP payouts compared
 * with the provider's own record (within the budget's share for reads), then, once the window is
 * done, the closing reading and the balance check. Returns the run as it stands, and what it found.
 */
export async function reconciliationStep(
  parts: ReconciliationParts,
  merchant: Merchant,
  held: ReconciliationRun,
): Promise<{ run: ReconciliationRun; found: Discrepancy[] }> {
  const { ctx, records } = parts;
  const run: ReconciliationRun = { ...held };
  const found: Discrepancy[] = [];
  const fail = (why: string) => ({ run: { ...run, state: 'FAILED' as const, failure: why, finishedAt: now() }, found });
  const now = () => ctx.now().getTime();
  if (!run.opening) {
    const reading = await readBalance(ctx, merchant, now);
    if (reading === 'failed') return fail('the provider refused the merchant key');
    if (reading === 'later') return { run, found };
    run.opening = reading;
  }
  const page = await records.createdBetween(merchant.id, { from: run.from, to: run.to }, run.after, STEP);
  for (const entry of page) {
    let answer: ProviderRecord | undefined;
    try {
      answer = await ctx.provider.checkStatus(merchant, entry.referenceId, 'reconcile');
    } catch (error) {
      if (stopFor(error) === 'failed') return fail('the provider refused the merchant key');
      return { run, found };
    }
    found.push(...(await compare(ctx, merchant, run, entry.record, answer)));
    run.checked += 1;
    run.after = { at: entry.at, referenceId: entry.referenceId };
  }
  if (page.length === STEP) return { run, found };
  const closing = await readBalance(ctx, merchant, now);
  if (closing === 'failed') return fail('the provider refused the merchant key');
  if (closing === 'later') return { run, found };
  const opening = run.opening;
  const explained = await explainedBetween(records, merchant.id, opening.at, closing.at, closing.currency);
  const moved = minorOf(closing.amount) - minorOf(opening.amount);
  return {
    run: {
      ...run,
      state: 'DONE',
      finishedAt: closing.at,
      closing,
      balance: {
        currency: closing.currency ?? opening.currency,
        opening: moneyText(minorOf(opening.amount)),
        closing: moneyText(minorOf(closing.amount)),
        explained: moneyText(explained),
        unexplained: moneyText(moved - explained),
      },
    },
    found,
  };
}

async function readBalance(ctx: DomainContext, merchant: Merchant, now: () => number): Promise<BalanceReading | Stop> {
  try {
    const balance = await ctx.provider.balance(merchant);
    return { amount: balance.amount, currency: balance.currency, at: now() };
  } catch (error) {
    return stopFor(error);
  }
}

/** Whether the gateway has heard from the provider that it has this payout (an answer, a callback, a check). */
function providerConfirmed(record: Disbursement): boolean {
  return record.history.some((event) => event.source !== 'CONTROL' && event.status !== 'UNKNOWN');
}

/**
 * One payout against the provider's record. A final status the provider has and the gateway lacks
 * is applied (history and audit say RECONCILED) and reported resolved; a final gateway status the
 * provider contradicts, another amount, or a confirmed payout the provider no longer has are
 * reported and never overwritten.
 */
async function compare(
  ctx: DomainContext,
  merchant: Merchant,
  run: ReconciliationRun,
  record: Disbursement,
  answer: ProviderRecord | undefined,
): Promise<Discrepancy[]> {
  const { referenceId } = record;
  // Never sent (held, ended before approval; scheduled and not sent yet, or ever): the provider has nothing to say about it.
  if (record.approval !== undefined && record.approval.decision !== 'APPROVED') return [];
  if (record.sendAt !== undefined && record.sentAt === undefined) return [];
  const gatewayStatus = record.status;
  if (!answer) {
    if (!providerConfirmed(record)) return [];
    return [{ referenceId, kind: 'MISSING_AT_PROVIDER', gatewayStatus, providerStatus: null, resolved: false }];
  }
  const providerStatus = answer.status;
  if (contentDiffers(record, answer).includes('amount'))
    return [{ referenceId, kind: 'AMOUNT_DIFFERS', gatewayStatus, providerStatus, resolved: false }];
  if (providerStatus === gatewayStatus || providerStatus === 'UNKNOWN') return [];
  if (isFinal(gatewayStatus))
    return [{ referenceId, kind: 'STATUS_DIFFERS', gatewayStatus, providerStatus, resolved: false }];
  const { changed } = await ctx.writer.change(
    merchant.id,
    referenceId,
    (current) => applyProviderAnswer(current, { record: answer, source: 'RECONCILED' }, ctx.now(), ctx.policy, true),
    whenVisible(AuditAction.RECONCILED, `reconciliation run ${run.id}: the provider says ${providerStatus}`),
  );
  return changed ? [{ referenceId, kind: 'STATUS_DIFFERS', gatewayStatus, providerStatus, resolved: true }] : [];
}

/** A balance as signed minor units. */
function minorOf(amount: string): number {
  const canonical = canonicalSignedDecimal(amount) ?? '0';
  return canonical.startsWith('-') ? -toMinor(canonical.slice(1)) : toMinor(canonical);
}

/**
 * What the gateway's payouts explain of the wallet's movement between two readings (minor units):
 * each payout the provider accepted in between took its amount; each that failed afterwards, in
 * between, gave it back. When the provider accepted and failed are read from each payout's own
 * history; a payout created FAILED never took anything.
 */
async function explainedBetween(
  records: RecordsReader,
  merchantId: string,
  from: number,
  to: number,
  currency: string | undefined,
): Promise<number> {
  let net = 0;
  let after: HistoryPosition | undefined;
  const within = (at: string | undefined) => at !== undefined && Date.parse(at) > from && Date.parse(at) <= to;
  for (;;) {
    const page = await records.writtenSince(merchantId, from, after, PAGE);
    for (const { record } of page) {
      if (currency !== undefined && record.currency !== currency) continue;
      const accepted = record.history.find((e) => e.status === 'PENDING' || e.status === 'SUCCESSFUL');
      if (!accepted) continue;
      const refunded = record.history.find((e) => e.status === 'FAILED' && e.at >= accepted.at);
      const minor = toMinor(record.amount);
      if (within(accepted.at)) net -= minor;
      if (within(refunded?.at)) net += minor;
    }
    if (page.length < PAGE) return net;
    const last = page[page.length - 1];
    after = { at: last.at, referenceId: last.referenceId };
  }
}
