import { Disbursement } from './disbursement.model';

/**
 * The record's fields a client may see, one scalar each: the GraphQL type shows them, the relay
 * sends them, and the status rules count a change as real only when one of them moves.
 * `history` and `relay` are public too, but are lists the view and the relay shape themselves.
 */
export const PUBLIC_FIELDS = [
  'referenceId',
  'identifier',
  'channel',
  'paymentType',
  'providerPaymentType',
  'status',
  'providerStatus',
  'message',
  'amount',
  'currency',
  'accountNumber',
  'narration',
  'externalId',
  'ipAddress',
  'createdAt',
  'updatedAt',
  'sendAt',
  'beneficiaryId',
] as const satisfies readonly (keyof Disbursement)[];

export type PublicField = (typeof PUBLIC_FIELDS)[number];
export type PublicRecord = Pick<Disbursement, PublicField>;

export function publicFields(record: Disbursement): PublicRecord {
  return Object.fromEntries(PUBLIC_FIELDS.map((f) => [f, record[f]])) as PublicRecord;
}

/** Whether anything a client could see differs; `updatedAt` follows every change, so it is not the change itself. */
export function visiblyDiffers(a: Disbursement, b: Disbursement): boolean {
  return PUBLIC_FIELDS.some((f) => f !== 'updatedAt' && a[f] !== b[f]);
}
