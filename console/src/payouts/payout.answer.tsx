import { useSubscription } from '@apollo/client/react';
import { Link } from '../app/app.router';
import type { PayoutRowFragment } from '../gql/graphql';
import { ErrorNote } from '../shared/error.note';
import { formatMoney } from '../shared/money';
import { StatusBadge } from '../shared/status.badge';
import { formatTime } from '../shared/time';
import { PAYOUT_UPDATED } from './payouts.operations';

const EXPLAINED: Partial<Record<PayoutRowFragment['status'], string>> = {
  PENDING: 'Sent to the provider; the final status follows here.',
  AWAITING_APPROVAL: 'Held until another person approves it in Approvals; nothing is sent before.',
  SCHEDULED: 'Nothing is sent before its time; cancel it in Scheduled until then.',
  UNKNOWN: 'The provider may have it: the gateway is finding out. Retry only with the same reference.',
};

/** The gateway's answer to a new payout at once, then its status live until final. */
export function PayoutAnswer({ payout }: { payout: PayoutRowFragment }) {
  const live = useSubscription(PAYOUT_UPDATED, { variables: { referenceId: payout.referenceId } });
  const current = live.data?.disbursementUpdated ?? payout;
  return (
    <section className="card answer" aria-labelledby="answer-title">
      <h2 id="answer-title">Payout {current.referenceId}</h2>
      <p role="status" aria-label="Payout status">
        <StatusBadge status={current.status} /> {current.message}
      </p>
      <p>
        {formatMoney(current.amount, current.currency)} to {current.accountNumber}
        {current.sendAt && `, to be sent at ${formatTime(current.sendAt)}`}
      </p>
      {EXPLAINED[current.status] && <p className="muted">{EXPLAINED[current.status]}</p>}
      <ErrorNote error={live.error} title="Live status stopped" />
      <Link to={`/payouts/${encodeURIComponent(current.referenceId)}`}>Open this payout</Link>
    </section>
  );
}
