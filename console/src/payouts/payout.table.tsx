import type { ReactNode } from 'react';
import { Link } from '../app/app.router';
import type { PayoutRowFragment } from '../gql/graphql';
import { formatMoney, maskAccount } from '../shared/money';
import { StatusBadge } from '../shared/status.badge';
import { formatTime } from '../shared/time';
import { CHANNEL_NAME } from './payout.channel';

/**
 * Payouts as rows: status, channel, amount, account (masked as the API masks a beneficiary's),
 * reference (a link to the payout's page) and time; `action` adds a last column. Each row is named
 * "Payout <reference>", so its buttons need no more than their word. Below 700 px each row is a
 * card (app.css), each cell labelled by its column.
 */
export function PayoutTable({
  payouts,
  caption,
  time = 'Created',
  action,
}: {
  payouts: readonly PayoutRowFragment[];
  caption: string;
  time?: 'Created' | 'Send time';
  action?: (payout: PayoutRowFragment) => ReactNode;
}) {
  return (
    <table className="rows">
      <caption className="visually-hidden">{caption}</caption>
      <thead>
        <tr>
          <th scope="col">Status</th>
          <th scope="col">Channel</th>
          <th scope="col" className="num">
            Amount
          </th>
          <th scope="col">Account</th>
          <th scope="col">Reference</th>
          <th scope="col">{time}</th>
          {action && <th scope="col">Action</th>}
        </tr>
      </thead>
      <tbody>
        {payouts.map((payout) => (
          <tr key={payout.referenceId} data-reference={payout.referenceId} aria-label={`Payout ${payout.referenceId}`}>
            <td data-label="Status">
              <StatusBadge status={payout.status} />
            </td>
            <td data-label="Channel">{CHANNEL_NAME[payout.channel]}</td>
            <td data-label="Amount" className="num">
              {formatMoney(payout.amount, payout.currency)}
            </td>
            <td data-label="Account">{maskAccount(payout.accountNumber)}</td>
            <td data-label="Reference" className="ref">
              <Link to={`/payouts/${encodeURIComponent(payout.referenceId)}`}>{payout.referenceId}</Link>
            </td>
            <td data-label={time}>
              {formatTime(time === 'Send time' ? payout.sendAt : (payout.createdAt ?? payout.updatedAt))}
            </td>
            {action && <td data-label="Action">{action(payout)}</td>}
          </tr>
        ))}
      </tbody>
    </table>
  );
}
