import { DisbursementStatus } from './disbursement.model';
import { HistoryPosition } from './disbursement.ports';

export type RunState = 'RUNNING' | 'DONE' | 'FAILED';

export type DiscrepancyKind = 'STATUS_DIFFERS' | 'AMOUNT_DIFFERS' | 'MISSING_AT_PROVIDER';

/** Where the gateway and the provider disagree about one payout of the window. */
export interface Discrepancy {
  referenceId: string;
  kind: DiscrepancyKind;
  gatewayStatus: DisbursementStatus;
  /** The provider's status (null when it has no such payout). */
  providerStatus: DisbursementStatus | null;
  /** True once the gateway took the provider's final word (history and audit say RECONCILED). */
  resolved: boolean;
}

/** The wallet as the provider gave it at one moment. */
export interface BalanceReading {
  /** Canonical decimal text. */
  amount: string;
  currency?: string;
  /** ms */
  at: number;
}

/** The wallet's movement between two readings, against what the gateway's payouts explain (two decimals each). */
export interface BalanceCheck {
  currency?: string;
  opening: string;
  closing: string;
  explained: string;
  unexplained: string;
}

/** One reconciliation of a window of a merchant's payouts against the provider. */
export interface ReconciliationRun {
  id: string;
  merchantId: string;
  /** The window of creation times, [from, to) in ms. */
  from: number;
  to: number;
  state: RunState;
  startedAt: number;
  finishedAt?: number;
  /** Payouts created in the window, counted at the start. */
  total: number;
  checked: number;
  /** The last payout checked: the run resumes after it. */
  after?: HistoryPosition;
  /** The opening reading: the previous run's closing one, or this run's first. */
  opening?: BalanceReading;
  /** The reading at the end, once DONE; the next run opens with it. */
  closing?: BalanceReading;
  balance?: BalanceCheck;
  /** Why a FAILED run stopped. */
  failure?: string;
}

/** Reconciliation runs and their discrepancies, kept where every replica sees them. */
export interface ReconciliationStore {
  /** Stores a new RUNNING run, unless the merchant has one running: then that one is answered and nothing stored. */
  create(run: ReconciliationRun): Promise<ReconciliationRun | undefined>;
  get(merchantId: string, id: string): Promise<ReconciliationRun | undefined>;
  /** A RUNNING run no replica holds, now held by the caller until `until`; undefined when there is none. */
  lease(now: number, until: number): Promise<ReconciliationRun | undefined>;
  /** Saves a held run's progress (and new discrepancies) and lets go of it. */
  save(run: ReconciliationRun, found: readonly Discrepancy[]): Promise<void>;
  /** The merchant's last run that finished DONE, for its closing reading. */
  lastDone(merchantId: string): Promise<ReconciliationRun | undefined>;
  discrepancies(runId: string): Promise<Discrepancy[]>;
}
