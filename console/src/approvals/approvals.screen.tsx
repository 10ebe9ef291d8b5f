import { useQuery } from '@apollo/client/react';
import { allows, SCOPES } from '../api/api.session';
import { Link } from '../app/app.router';
import { useSession } from '../app/app.session';
import { BENEFICIARY_LIST } from '../beneficiaries/beneficiaries.operations';
import { PayoutActions } from '../payouts/payout.actions';
import { CHANNEL_NAME } from '../payouts/payout.channel';
import { usePayoutChanges } from '../payouts/payout.changes';
import { PAYOUT_LIST } from '../payouts/payouts.operations';
import { SendingAgain } from '../payouts/sending-again';
import { ErrorNote } from '../shared/error.note';
import { Loading } from '../shared/loading';
import { formatMoney } from '../shared/money';
import { formatTime } from '../shared/time';
import { BeneficiaryApproval } from './beneficiary.approval';

/** The API's largest page: a queue longer than this is worked from the top. */
const QUEUE = 100;

/**
 * What waits for a second person: payouts held for approval, with exactly what is approved, and
 * beneficiaries whose new details await approval. A person's own requests are listed but not offered.
 */
export function ApprovalsScreen() {
  const session = useSession();
  const payouts = useQuery(PAYOUT_LIST, {
    variables: { first: QUEUE, filter: { status: ['AWAITING_APPROVAL'] } },
    notifyOnNetworkStatusChange: true,
  });
  const { refetch } = payouts;
  // A payout held, approved, rejected or expired anywhere changes the queue.
  const liveError = usePayoutChanges((payout) => {
    if (!payout || payout.status === 'AWAITING_APPROVAL' || payout.approval) void refetch();
  });
  const readsBook = allows(session, SCOPES.beneficiariesRead) || allows(session, SCOPES.beneficiariesWrite);
  // Beneficiary changes have no live feed in the API: the queue is asked again every 10 s.
  const changes = useQuery(BENEFICIARY_LIST, {
    variables: { first: QUEUE, filter: { status: 'AWAITING_APPROVAL' } },
    skip: !readsBook,
    pollInterval: 10_000,
  });
  const held = (payouts.data?.disbursementHistory.edges ?? [])
    .map((edge) => edge.node)
    .filter((payout) => payout.status === 'AWAITING_APPROVAL');
  const pendingBeneficiaries = (changes.data?.beneficiaries.edges ?? []).map((edge) => edge.node);

  return (
    <>
      <h1>Approvals</h1>
      <section aria-labelledby="held-payouts">
        <h2 id="held-payouts">Payouts awaiting approval</h2>
        <ErrorNote error={payouts.error} />
        <ErrorNote error={liveError} title="Live updates stopped" />
        {payouts.loading && !payouts.data && <Loading what="the approval queue" />}
        {payouts.data && held.length === 0 && <p className="empty">No payout awaits approval.</p>}
        <ul className="cards">
          {held.map((payout) => (
            <li key={payout.referenceId} className="card" aria-label={`Payout ${payout.referenceId}`}>
              <h3>{formatMoney(payout.amount, payout.currency)}</h3>
              <dl className="details">
                <dt>To account</dt>
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
                <dt>Asked by</dt>
                <dd>{payout.approval?.requestedBy}</dd>
                <dt>Asked at</dt>
                <dd>{formatTime(payout.createdAt ?? payout.updatedAt)}</dd>
                <dt>Expires</dt>
                <dd>{formatTime(payout.approval?.expiresAt)}</dd>
                <dt>Reference</dt>
                <dd>
                  <Link to={`/payouts/${encodeURIComponent(payout.referenceId)}`}>{payout.referenceId}</Link>
                </dd>
              </dl>
              <PayoutActions payout={payout} onDone={() => void refetch()} />
            </li>
          ))}
        </ul>
      </section>
      <SendingAgain title="Approved, to be sent again" which={(payout) => payout.approval?.decision === 'APPROVED'} />
      {readsBook && (
        <section aria-labelledby="held-beneficiaries">
          <h2 id="held-beneficiaries">Beneficiary details awaiting approval</h2>
          <ErrorNote error={changes.error} />
          {changes.data && pendingBeneficiaries.length === 0 && (
            <p className="empty">No beneficiary awaits approval.</p>
          )}
          <ul className="cards">
            {pendingBeneficiaries.map((beneficiary) => (
              <BeneficiaryApproval
                key={`${beneficiary.id} ${beneficiary.detailsFingerprint}`}
                id={beneficiary.id}
                onDone={() => void changes.refetch()}
              />
            ))}
          </ul>
        </section>
      )}
    </>
  );
}
