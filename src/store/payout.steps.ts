import { KeyedDraft } from '../disbursements/audit.entry';
import { Disbursement, Reservation } from '../disbursements/disbursement.model';
import { ReservationCaps } from '../disbursements/payout.controls';
import { RelayJob } from '../disbursements/relay.job';
import { PayoutColumns, RowVersion } from './payout.row';

export type { RowVersion };

// The write steps of a payout, as data: what each writes and under what condition, decided once by
// the store (payout.store.ts). An engine executes a step whole or not at all: PostgreSQL as one
// statement, one round trip (postgres.steps.ts); the embedded file as a few statements in one
// savepoint of its next group commit (sqlite.steps.ts).

/** A new payout's row, claimed unless one exists under its key. */
export interface ClaimStep {
  record: Disbursement;
  columns: PayoutColumns;
  /** The day's hold to take first; none taken, nothing claimed, when it would pass a cap. */
  hold?: { held: Reservation; caps: ReservationCaps };
  /** The record goes to the change log (a client sees it at once). */
  logged: boolean;
  audit: readonly KeyedDraft[];
}

export interface ClaimAnswer {
  claimed: boolean;
  /** The record already stored under the key. */
  existing?: Disbursement;
  /** The hold was refused: the day's counters as they stood. */
  refusedAt?: { merchant: number; actor: number };
}

/** A payout's row written again, with what commits beside it. */
export interface RewriteStep {
  at: RowVersion;
  record: Disbursement;
  columns: PayoutColumns;
  /** The reservation to give back. */
  release?: Reservation;
  logged: boolean;
  /** The relay job the write that makes it final queues. */
  relay?: RelayJob;
  audit: readonly KeyedDraft[];
}

/** A payout's row removed, with what commits beside it. */
export interface EraseStep {
  at: RowVersion;
  release?: Reservation;
  audit: readonly KeyedDraft[];
}

/** A stored row: its record, its text and its revision. */
export interface StoredRow {
  record: Disbursement;
  written: string;
  revision: string;
}

/** How an engine executes the steps; each answers whether it happened (its condition held). */
export interface PayoutSteps {
  claim(step: ClaimStep): Promise<ClaimAnswer>;
  rewrite(step: RewriteStep): Promise<boolean>;
  erase(step: EraseStep): Promise<boolean>;
  append(merchantId: string, audit: readonly KeyedDraft[]): Promise<void>;
}
