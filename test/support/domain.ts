import { randomUUID } from 'node:crypto';
import {
  Disbursement,
  DisbursementRequest,
  ProviderBalance,
  ProviderRecord,
} from '../../src/disbursements/disbursement.model';
import {
  Merchant,
  ProviderError,
  ProviderPort,
  StoreUnavailableError,
} from '../../src/disbursements/disbursement.ports';
import { DisbursementService } from '../../src/disbursements/disbursement.service';
import { ControlEvent } from '../../src/disbursements/payout.controls';
import { PubSubEvents } from '../../src/events/pubsub.events';
import { openSqlite } from '../../src/database/sqlite.open';
import { sqliteStore } from '../../src/store/sqlite.engine';
import { SqliteReconciliations } from '../../src/store/sqlite.reconciliations';
import { TEST_AUDIT_KEYS, TEST_ENTRY_KEY } from './chain-key';
import { PayoutStore } from '../../src/store/payout.store';

/**
 * What the fake provider does with the next create:
 * - `Pending` / `Failed`: stores the payout and answers it;
 * - `{ fail, stores }`: answers with that failure, having stored the payout first when `stores`;
 * - `hang`: stores nothing and never answers.
 */
export type CreateScript =
  'Pending' | 'Failed' | { fail: ProviderError | StoreUnavailableError; stores: boolean } | 'hang';

/** A provider in memory: a ledger check-status reads, scriptable answers, and a count of every call. */
export class FakeProvider implements ProviderPort {
  readonly ledger = new Map<string, ProviderRecord>();
  readonly creates: DisbursementRequest[] = [];
  readonly checks: string[] = [];
  /** Answers for the next creates, in order; then `Pending`. */
  readonly script: CreateScript[] = [];
  /** When set, check-status fails with it. */
  checkFailure?: ProviderError | StoreUnavailableError;
  /** Pays a repeated referenceId again instead of refusing it, as one reported provider does. */
  paysRepeats = false;
  /** Called as each create arrives, e.g. to move a test's clock by the time the call takes. */
  onCreate?: () => void;

  async create(_merchant: Merchant, request: DisbursementRequest): Promise<ProviderRecord> {
    this.creates.push(request);
    this.onCreate?.();
    // A real provider refuses a referenceId it already has, whatever the content (unless it pays repeats).
    if (this.ledger.has(request.referenceId) && !this.paysRepeats)
      throw new ProviderError('rejected', 'referenceId already used', { status: 400, field: 'referenceId' });
    const next = this.script.shift() ?? 'Pending';
    if (next === 'hang') return new Promise<never>(() => undefined);
    if (typeof next === 'object') {
      if (next.stores) this.have(request, 'Pending');
      throw next.fail;
    }
    return this.have(request, next);
  }

  /** The wallet as the provider reports it (reconciliation reads it; creates never do). */
  wallet: ProviderBalance = { amount: '0', currency: 'ZMW' };

  async balance(): Promise<ProviderBalance> {
    return this.wallet;
  }

  async checkStatus(_merchant: Merchant, referenceId: string): Promise<ProviderRecord | undefined> {
    this.checks.push(referenceId);
    if (this.checkFailure) throw this.checkFailure;
    return this.ledger.get(referenceId);
  }

  /** Puts a payout in the provider's ledger, as if it had been created there. */
  have(
    request: Pick<DisbursementRequest, 'referenceId' | 'amount' | 'currency' | 'accountNumber'>,
    status: string,
  ): ProviderRecord {
    const record = providerRecord(request, status);
    this.ledger.set(request.referenceId, record);
    return record;
  }

  settle(referenceId: string, status: string): void {
    const current = this.ledger.get(referenceId);
    if (current) this.ledger.set(referenceId, { ...current, ...statusOf(status) });
  }
}

function statusOf(status: string): Pick<ProviderRecord, 'status' | 'providerStatus' | 'message'> {
  const upper = status.toUpperCase() as ProviderRecord['status'];
  return { status: upper, providerStatus: status, message: status === 'Failed' ? 'Insufficient funds' : undefined };
}

export function providerRecord(
  request: Pick<DisbursementRequest, 'referenceId' | 'amount' | 'currency' | 'accountNumber'>,
  status: string,
): ProviderRecord {
  return {
    referenceId: request.referenceId,
    amount: request.amount,
    currency: request.currency,
    accountNumber: request.accountNumber,
    ...statusOf(status),
    paymentType: 'OPERATOR_A_MONEY',
    providerPaymentType: 'OperatorAMoney',
    identifier: `MM-${request.referenceId}`,
    ipAddress: '127.0.0.1',
    createdAt: '2026-11-22T10:00:00Z',
  };
}

export const merchant: Merchant = { id: 'm1', apiKey: 'key-1' };

export function mobileRequest(overrides: Partial<DisbursementRequest> = {}): DisbursementRequest {
  return {
    channel: 'MOBILE_MONEY',
    referenceId: `ref-${randomUUID()}`,
    amount: '150.75',
    currency: 'ZMW',
    accountNumber: '260971234567',
    ...overrides,
  } as DisbursementRequest;
}

export interface Domain {
  provider: FakeProvider;
  store: PayoutStore;
  events: PubSubEvents;
  service: DisbursementService;
  /** Every record published, in order. */
  published: Disbursement[];
  /** Records reported final, in order. */
  finals: Disbursement[];
  mismatches: unknown[];
  /** Payout-control actions reported, in order. */
  controls: ControlEvent[];
}

/** The real domain over the embedded store (an in-memory SQLite database) and in-process events, with the fake provider: no network. */
export function domain(
  opts: {
    upstreamTimeoutMs?: number;
    /** RESEND_AFTER_SECONDS in ms; default the setting's default, 60 s. */
    resendAfterMs?: number;
    orphansPerHour?: number;
    now?: () => Date;
    payoutDayTimeZone?: string;
    /** In-process events of the test's own, e.g. over an EventTarget whose listeners it counts. */
    events?: PubSubEvents;
    /** When the database last went back in time. */
    rewoundAt?: () => number | undefined;
    /** SCHEDULE_LATE_LIMIT_SECONDS in ms; default the setting's default, one day. */
    scheduleLateLimitMs?: number;
  } = {},
): Domain {
  const provider = new FakeProvider();
  const events = opts.events ?? new PubSubEvents();
  const published: Disbursement[] = [];
  const finals: Disbursement[] = [];
  const mismatches: unknown[] = [];
  const controls: ControlEvent[] = [];
  const file = openSqlite(':memory:');
  const store = sqliteStore({
    file,
    entryKey: TEST_ENTRY_KEY,
    onChange: (record) => {
      published.push(record);
      void events.publish(record);
    },
    now: opts.now && (() => opts.now!().getTime()),
  });
  const service = new DisbursementService({
    store,
    records: store,
    book: store,
    auditKeys: TEST_AUDIT_KEYS,
    runs: new SqliteReconciliations(file),
    events,
    provider,
    upstreamTimeoutMs: opts.upstreamTimeoutMs ?? 60_000,
    resendAfterMs: opts.resendAfterMs ?? 60_000,
    scheduleLateLimitMs: opts.scheduleLateLimitMs,
    rewoundAt: opts.rewoundAt,
    claimPollMs: 5,
    recheck: { unknownAfterMs: 1000, pendingAfterMs: 60_000, maxDelayMs: 600_000 },
    onFinal: (r) => finals.push(r),
    onMismatch: (m) => mismatches.push(m),
    orphansPerHour: opts.orphansPerHour,
    now: opts.now,
    payoutDayTimeZone: opts.payoutDayTimeZone,
    onControl: (event) => controls.push(event),
  });
  return { provider, store, events, service, published, finals, mismatches, controls };
}
