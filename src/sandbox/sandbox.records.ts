import { randomInt } from 'node:crypto';

export type PayoutStatus = 'Pending' | 'Successful' | 'Failed';
export type PaymentType = 'Bank' | 'OperatorAMoney' | 'OperatorBMoney' | 'OperatorCKwacha' | ProviderOperatorName;
/** The names the real provider gives the operators the spec anonymises (docs/provider.md). */
export type ProviderOperatorName = 'AirtelMoney' | 'MtnMoney' | 'ZamtelKwacha';

const PROVIDER_NAMES: Readonly<Record<string, ProviderOperatorName>> = {
  OperatorAMoney: 'AirtelMoney',
  OperatorBMoney: 'MtnMoney',
  OperatorCKwacha: 'ZamtelKwacha',
};

/** The real provider's name for a spec operator name; other payment types unchanged. */
export function providerName(paymentType: PaymentType): PaymentType {
  return Object.hasOwn(PROVIDER_NAMES, paymentType) ? PROVIDER_NAMES[paymentType] : paymentType;
}
export type Channel = 'bank' | 'mobile-money';

/** A disbursement record as the provider answers it (spec 2.3); key order follows the spec. */
export interface SandboxRecord {
  referenceId: string;
  amount: number;
  currency: string;
  accountNumber: string;
  status: PayoutStatus;
  type: 'Disbursement';
  paymentType: PaymentType;
  ipAddress: string;
  identifier: string;
  narration?: string;
  externalId?: string | null;
  createdAt?: string;
  message?: string;
}

/** A create request that passed validation. */
export interface PayoutRequest {
  channel: Channel;
  referenceId: string;
  amount: number;
  currency: string;
  accountNumber: string;
  paymentType: PaymentType;
  narration?: string;
  callbackUrl?: string;
}

/** What the last three digits of accountNumber make the sandbox do. */
export interface Scenario {
  create: 'normal' | 'failed' | 'server-error' | 'slow' | 'intake' | 'vanish' | 'echo';
  /** Final state reached settleMs after creation; unset: never settles or already final. */
  settlesAs?: 'Successful' | 'Failed';
}

export function scenarioFor(accountNumber: string): Scenario {
  switch (accountNumber.slice(-3)) {
    case '111':
      return { create: 'failed' };
    case '000':
      return { create: 'normal', settlesAs: 'Failed' };
    case '222':
      return { create: 'normal' };
    case '500':
      return { create: 'server-error' };
    case '408':
      return { create: 'slow', settlesAs: 'Successful' };
    case '425':
      return { create: 'intake', settlesAs: 'Successful' };
    case '410':
      return { create: 'vanish' };
    case '999':
      return { create: 'echo', settlesAs: 'Successful' };
    default:
      return { create: 'normal', settlesAs: 'Successful' };
  }
}

const OPERATOR_BY_PREFIX: Readonly<Record<string, PaymentType>> = {
  '26097': 'OperatorAMoney',
  '26077': 'OperatorAMoney',
  '26096': 'OperatorBMoney',
  '26076': 'OperatorBMoney',
  '26095': 'OperatorCKwacha',
  '26075': 'OperatorCKwacha',
};

/** The operator of a 12-digit mobile number, from its prefix; undefined when unknown. */
export function operatorFor(msisdn: string): PaymentType | undefined {
  return Object.hasOwn(OPERATOR_BY_PREFIX, msisdn.slice(0, 5)) ? OPERATOR_BY_PREFIX[msisdn.slice(0, 5)] : undefined;
}

export const FAILED_AT_ONCE_MESSAGE = 'Transaction failed: beneficiary account rejected by operator';
export const FAILED_ON_SETTLE_MESSAGE = 'Transaction failed: status check towards operator returned HTTP 400';

/** Wall-clock time with microseconds, which Date alone does not carry. */
function nowMicros(): { date: Date; micros: number } {
  const micros = Math.floor((performance.timeOrigin + performance.now()) * 1000);
  return { date: new Date(Math.floor(micros / 1000)), micros: micros % 1_000_000 };
}

const pad = (n: number, width: number): string => String(n).padStart(width, '0');

/** A record just stored, and the id that settles it. */
export interface Opened {
  id: number;
  record: SandboxRecord;
}

/**
 * Records of every API key, kept apart so that each key sees only its own payouts. A referenceId
 * paid again is stored as a payout of its own, while check-status keeps answering the first one.
 */
export class Ledger {
  private readonly firstByKey = new Map<string, Map<string, SandboxRecord>>();
  private readonly stored: SandboxRecord[] = [];
  // Starts anywhere so identifiers differ between sandbox runs.
  private sequence = randomInt(0, 1_000_000);

  get(apiKey: string, referenceId: string): SandboxRecord | undefined {
    const record = this.firstByKey.get(apiKey)?.get(referenceId);
    return record && { ...record };
  }

  has(apiKey: string, referenceId: string): boolean {
    return this.firstByKey.get(apiKey)?.has(referenceId) ?? false;
  }

  /** Stores a new record, Pending or (with a failure message) Failed at once; answers a copy and its id. */
  open(apiKey: string, request: PayoutRequest, ipAddress: string, failedWith?: string, echo?: string): Opened {
    const { date, micros } = nowMicros();
    const base = {
      referenceId: request.referenceId,
      amount: request.amount,
      currency: request.currency,
      accountNumber: request.accountNumber,
    };
    const tail = {
      type: 'Disbursement' as const,
      paymentType: request.paymentType,
      ipAddress,
      identifier: this.identifier(request.channel, date),
    };
    const record: SandboxRecord =
      failedWith !== undefined
        ? { ...base, status: 'Failed', ...tail, message: failedWith }
        : {
            ...base,
            status: 'Pending',
            ...tail,
            ...(request.narration === undefined ? {} : { narration: request.narration }),
            externalId: null,
            createdAt: `${date.toISOString().slice(0, 19)}.${pad(micros, 6)}+00:00`,
            ...(echo === undefined ? {} : { message: echo }),
          };
    let records = this.firstByKey.get(apiKey);
    if (!records) {
      records = new Map();
      this.firstByKey.set(apiKey, records);
    }
    if (!records.has(request.referenceId)) records.set(request.referenceId, record);
    const id = this.stored.push(record) - 1;
    return { id, record: { ...record } };
  }

  /** Moves a Pending record to its final state and answers a copy. */
  settle(id: number, status: 'Successful' | 'Failed'): SandboxRecord | undefined {
    const record = this.stored.at(id);
    if (!record || record.status !== 'Pending') return undefined;
    record.status = status;
    if (status === 'Successful') record.externalId = `OP${randomInt(1_000_000_000, 10_000_000_000)}`;
    else record.message = FAILED_ON_SETTLE_MESSAGE;
    return { ...record };
  }

  /** Every stored record, in the order stored. */
  all(): SandboxRecord[] {
    return this.stored.map((r) => ({ ...r }));
  }

  /** Bank: BNK-20261122-140312-004417; mobile money: MM-20261122140312-48213. */
  private identifier(channel: Channel, date: Date): string {
    this.sequence = (this.sequence + 1) % 1_000_000;
    const digits = date.toISOString().replace(/\D/g, '');
    const day = digits.slice(0, 8);
    const time = digits.slice(8, 14);
    switch (channel) {
      case 'bank':
        return `BNK-${day}-${time}-${pad(this.sequence, 6)}`;
      case 'mobile-money':
        return `MM-${day}${time}-${pad(this.sequence % 100_000, 5)}`;
      default:
        return channel satisfies never;
    }
  }
}
