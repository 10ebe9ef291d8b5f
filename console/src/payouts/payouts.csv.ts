import type { PayoutRowFragment } from '../gql/graphql';
import { toCsv } from '../shared/csv';
import { maskAccount } from '../shared/money';

const HEADER = [
  'referenceId',
  'status',
  'channel',
  'paymentType',
  'amount',
  'currency',
  'account',
  'narration',
  'createdAt',
  'updatedAt',
  'sendAt',
];

/** The payouts a filter shows, as the list shows them (accounts masked), amounts as the API's decimal text. */
export function payoutsCsv(payouts: readonly PayoutRowFragment[]): string {
  return toCsv([
    HEADER,
    ...payouts.map((p) => [
      p.referenceId,
      p.status,
      p.channel,
      p.paymentType,
      p.amount,
      p.currency,
      maskAccount(p.accountNumber),
      p.narration ?? '',
      p.createdAt ?? '',
      p.updatedAt,
      p.sendAt ?? '',
    ]),
  ]);
}
