import { useQuery, useSubscription } from '@apollo/client/react';
import { useEffect } from 'react';
import { allows, SCOPES } from '../api/api.session';
import { Link } from '../app/app.router';
import { useSession } from '../app/app.session';
import { ErrorNote } from '../shared/error.note';
import { Loading } from '../shared/loading';
import { formatMoney } from '../shared/money';
import { StatusBadge } from '../shared/status.badge';
import { formatTime } from '../shared/time';
import { PayoutActions } from './payout.actions';
import { CHANNEL_NAME } from './payout.channel';
import { timelineOf } from './payout.timeline';
import { PAYOUT, PAYOUT_AUDIT, PAYOUT_UPDATED } from './payouts.operations';

/** One payout: its status live, its details, what its state allows, and its history and audit entries as a timeline. */
export function PayoutScreen({ referenceId }: { referenceId: string }) {
  const session = useSession();
  const auditor = allows(session, SCOPES.audit);
  const { data, loading, error } = useQuery(PAYOUT, { variables: { referenceId } });
  // The current state first, then every change: Apollo's cache rewrites the payout above.
  const live = useSubscription(PAYOUT_UPDATED, { variables: { referenceId } });
  const payout = live.data?.disbursementUpdated ?? data?.disbursement;
  const audit = useQuery(PAYOUT_AUDIT, { variables: { referenceId }, skip: !auditor });
  const { refetch } = audit;
  const status = payout?.status;
  useEffect(() => {
    if (auditor && status) void refetch();
  }, [auditor, status, refetch]);

  if (loading && !payout) return <Loading what="the payout" />;
  if (error) return <ErrorNote error={error} />;
  if (!payout)
    return (
      <>
        <h1>Payout {referenceId}</h1>
        <p>No payout has this reference.</p>
      </>
    );
  const entries = (audit.data?.auditTrail.edges ?? []).map((edge) => edge.node);
  const timeline = timelineOf(payout.history, entries);
  return (
    <>
      <p>
        <Link to="/payouts">All payouts</Link>
      </p>
      <h1>Payout {payout.referenceId}</h1>
      <p className="status-line" role="status" aria-live="polite" aria-label="Status">
        <StatusBadge status={payout.status} /> {payout.message}
      </p>
      <ErrorNote error={live.error} title="Live status stopped" />
      <dl className="details">
        <dt>Amount</dt>
        <dd>{formatMoney(payout.amount, payout.currency)}</dd>
        <dt>Account</dt>
        <dd>{payout.accountNumber}</dd>
        <dt>Channel</dt>
        <dd>{CHANNEL_NAME[payout.channel]}</dd>
        <dt>Payment type</dt>
        <dd>{payout.paymentType}</dd>
        {payout.narration && (
          <>
            <dt>Narration</dt>
            <dd>{payout.narration}</dd>
          </>
        )}
        {payout.sendAt && (
          <>
            <dt>Send time</dt>
            <dd>{formatTime(payout.sendAt)}</dd>
          </>
        )}
        {payout.approval && (
          <>
            <dt>Requested by</dt>
            <dd>{payout.approval.requestedBy}</dd>
            <dt>Approval</dt>
            <dd>
              {payout.approval.decision
                ? `${payout.approval.decision} by ${payout.approval.decidedBy ?? 'the gateway'} at ${formatTime(payout.approval.decidedAt)}${payout.approval.reason ? `: ${payout.approval.reason}` : ''}`
                : `awaiting, expires ${formatTime(payout.approval.expiresAt)}`}
            </dd>
          </>
        )}
        {payout.identifier && (
          <>
            <dt>Provider id</dt>
            <dd>{payout.identifier}</dd>
          </>
        )}
      </dl>
      <PayoutActions payout={payout} />
      <h2>Timeline</h2>
      <ErrorNote error={audit.error} title="The audit entries could not be read" />
      <ol className="timeline" aria-label="Timeline">
        {timeline.map((item) => (
          <li key={item.key}>
            <time dateTime={item.at}>{formatTime(item.at)}</time>
            <strong>{item.what}</strong>
            <span className="who">{item.who}</span>
            {item.detail && <span className="muted">{item.detail}</span>}
          </li>
        ))}
      </ol>
      {audit.data?.auditTrail.pageInfo.hasNextPage && (
        <Link to={`/audit?reference=${encodeURIComponent(payout.referenceId)}`}>All audit entries of this payout</Link>
      )}
    </>
  );
}
