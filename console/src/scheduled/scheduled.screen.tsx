import { useQuery } from '@apollo/client/react';
import { PayoutActions } from '../payouts/payout.actions';
import { PayoutTable } from '../payouts/payout.table';
import { usePayoutChanges } from '../payouts/payout.changes';
import { PAYOUT_LIST } from '../payouts/payouts.operations';
import { SendingAgain } from '../payouts/sending-again';
import { ErrorNote } from '../shared/error.note';
import { Loading } from '../shared/loading';
import { Pager, useCursors } from '../shared/pager';

const PAGE = 50;

/** Payouts waiting for their send time, each with Cancel until then; one sent, cancelled or newly scheduled updates the list. */
export function ScheduledScreen() {
  const cursors = useCursors();
  const { data, loading, error, refetch } = useQuery(PAYOUT_LIST, {
    variables: { first: PAGE, after: cursors.after, filter: { status: ['SCHEDULED'] } },
    notifyOnNetworkStatusChange: true,
  });
  const liveError = usePayoutChanges((payout) => {
    if (!payout || payout.sendAt) void refetch();
  });
  const page = data?.disbursementHistory;
  const rows = (page?.edges ?? []).map((edge) => edge.node).filter((payout) => payout.status === 'SCHEDULED');
  return (
    <>
      <h1>Scheduled</h1>
      <ErrorNote error={error} />
      <ErrorNote error={liveError} title="Live updates stopped" />
      {loading && !page && <Loading what="scheduled payouts" />}
      {page && rows.length === 0 && <p className="empty">No payout is waiting for its time.</p>}
      {rows.length > 0 && (
        <PayoutTable
          payouts={rows}
          caption="Scheduled payouts"
          time="Send time"
          action={(payout) => <PayoutActions payout={payout} onDone={() => void refetch()} />}
        />
      )}
      <SendingAgain title="Due, to be sent again" which={(payout) => Boolean(payout.sendAt)} />
      {page && (page.pageInfo.hasNextPage || cursors.page > 1) && (
        <Pager label="Scheduled payouts" cursors={cursors} size={PAGE} connection={page} />
      )}
    </>
  );
}
