import { createHash } from 'node:crypto';
import { AuditAction, AuditDraft, auditEvent } from './audit.entry';
import { CHANNEL_RULES } from './channel.rules';
import { BankRequest, DisbursementChannel, DisbursementRequest, MobileMoneyRequest } from './disbursement.model';

/** A saved recipient of a merchant (docs/beneficiaries.md). */
export const BeneficiaryStatus = {
  ACTIVE: 'ACTIVE',
  /** New, or its account details changed, under beneficiaryApproval: not payable until someone else approves. */
  AWAITING_APPROVAL: 'AWAITING_APPROVAL',
  /** Never payable again; its payouts stay. */
  ARCHIVED: 'ARCHIVED',
} as const;
export type BeneficiaryStatus = (typeof BeneficiaryStatus)[keyof typeof BeneficiaryStatus];

/** A bank account, with the fields the bank payout takes under the same names. */
export type BankAccount = Pick<
  BankRequest,
  'channel' | 'accountNumber' | 'swiftCode' | 'firstName' | 'lastName' | 'accountHolderName' | 'phoneNumber' | 'email'
>;
export type MobileMoneyAccount = Pick<MobileMoneyRequest, 'channel' | 'accountNumber'>;
/** Where the money goes: what an approval covers and a change of which holds new payouts. */
export type AccountDetails = BankAccount | MobileMoneyAccount;

export interface Beneficiary {
  merchantId: string;
  id: string;
  /** How the merchant knows it; under beneficiaryApproval a new name awaits approval as new details do. */
  name: string;
  details: AccountDetails;
  status: BeneficiaryStatus;
  createdBy: string;
  createdAt: string;
  /** Who set the current account details (identity, compared so nobody approves their own). */
  requesterId: string;
  /** Who approved the current account details; unset when none had to. */
  approvedBy?: string;
  /** When the account details last changed (or were first set). */
  changedAt: string;
  /** From when a payout to it is no longer held as to a new payee: changedAt + newPayeeHoldSeconds. */
  payableFrom: string;
  updatedAt: string;
}

/** What a create or an update gives: the name and the account details, already validated. */
export interface BeneficiaryDraft {
  name: string;
  details: AccountDetails;
}

export interface BeneficiaryFilter {
  status?: BeneficiaryStatus;
  channel?: DisbursementChannel;
  /** Case-insensitive part of the name or of the account number. */
  search?: string;
}

/** Where a beneficiary sits in its merchant's book: oldest first, by creation then id. */
export interface BeneficiaryPosition {
  at: number;
  id: string;
}

export interface BeneficiaryQuery {
  after?: BeneficiaryPosition;
  limit: number;
  filter: BeneficiaryFilter;
}

export interface BeneficiaryPage {
  beneficiaries: Beneficiary[];
  hasMore: boolean;
  /** Every beneficiary of the merchant matching the filter. */
  totalCount: number;
}

/** `260971234567` → `****4567`: what lists, logs and the audit show of an account number. */
export function maskAccount(accountNumber: string): string {
  return `****${accountNumber.slice(-4)}`;
}

/** The account details a payout's request carries, in the order a beneficiary keeps them. */
export function detailsOf(request: DisbursementRequest): AccountDetails {
  switch (request.channel) {
    case 'BANK': {
      const { accountNumber, swiftCode, firstName, lastName, accountHolderName, phoneNumber, email } = request;
      return { channel: 'BANK', accountNumber, swiftCode, firstName, lastName, accountHolderName, phoneNumber, email };
    }
    case 'MOBILE_MONEY':
      return { channel: 'MOBILE_MONEY', accountNumber: request.accountNumber };
    default:
      return request satisfies never;
  }
}

/** Every field of the details in a fixed order, the channel first: what `sameDetails` compares. */
function accountFields(d: AccountDetails): unknown[] {
  switch (d.channel) {
    case 'BANK':
      return [
        d.channel,
        d.accountNumber,
        d.swiftCode,
        d.firstName,
        d.lastName,
        d.accountHolderName,
        d.phoneNumber,
        d.email,
      ];
    case 'MOBILE_MONEY':
      return [d.channel, d.accountNumber];
    default:
      return d satisfies never;
  }
}

/** What makes two beneficiaries the same payee: the channel, the account number and, for a bank, its SWIFT code. */
export function accountKey(details: AccountDetails): string {
  return JSON.stringify([details.channel, details.accountNumber, institutionOf(details)?.toUpperCase() ?? '']);
}

/** Whether two sets of account details are the same in every field (a change of any needs approval). */
export function sameDetails(a: AccountDetails, b: AccountDetails): boolean {
  return JSON.stringify(accountFields(a)) === JSON.stringify(accountFields(b));
}

/**
 * What an approver saw: a digest of the name and every account field. approveBeneficiary's
 * `expectedDetails` names it, so details changed between seeing and approving are not approved.
 */
export function detailsFingerprint(b: Pick<Beneficiary, 'name' | 'details'>): string {
  return createHash('sha256')
    .update(JSON.stringify([b.name, ...accountFields(b.details)]))
    .digest('base64url')
    .slice(0, 22);
}

/** The institution that holds the account, when the channel names one: a bank's SWIFT code. */
function institutionOf(details: AccountDetails): string | undefined {
  switch (details.channel) {
    case 'BANK':
      return details.swiftCode;
    case 'MOBILE_MONEY':
      return undefined;
    default:
      return details satisfies never;
  }
}

/** The details as the audit shows them: the channel (a bank with its SWIFT code) and the masked account number. */
export function describeAccount(details: AccountDetails): string {
  const institution = institutionOf(details);
  const label = CHANNEL_RULES[details.channel].label;
  return `${institution === undefined ? label : `${label} ${institution}`} ${maskAccount(details.accountNumber)}`;
}

/** The text a beneficiary's searches match: its name and account number, lower case. */
export function searchText(b: Beneficiary): string {
  return `${b.name}\n${b.details.accountNumber}`.toLowerCase();
}

/** An entry about a beneficiary: no payout, so no referenceId, status or amount; the id and masked details in `detail`. */
export function beneficiaryAudit(
  action: AuditAction,
  b: Beneficiary,
  actor: string,
  at: string,
  what: string,
): AuditDraft {
  return auditEvent(action, at, { actor, detail: `beneficiary ${b.id} "${b.name}": ${what}` });
}
