import { useQuery } from '@apollo/client/react';
import { usePayoutChanges } from './payout.changes';
import { PayoutTable } from './payout.table';
import { PAYOUT_LIST } from './payouts.operations';
import { PayoutRowFragment } from '../gql/graphql';

/** Payouts whose outcome is unknown are few: one page shows them all. */
const PAGE = 100;

/**
 * Decided payouts whose send has no known outcome (the gateway was killed mid-send, the provider did
 * not answer): the gateway sends each again itself once the provider confirms it never received it
 * (`sendsAgain`), so the screen that decided them keeps showing them until then.
 */
function useSendingAgain(): PayoutRowFragment[] | undefined {
  const { data, refetch } = useQuery(PAYOUT_LIST, {
    variables: { first: PAGE, filter: { status: ['UNKNOWN'] } },
    notifyOnNetworkStatusChange: true,
  });
  usePayoutChanges(() => void refetch());
  return data?.disbursementHistory.edges.map((edge) => edge.node).filter((payout) => payout.sendsAgain);
}

/** Those of them `which` picks (approved ones, scheduled ones), under `title`; nothing when there are none. */
export function SendingAgain({ which, title }: { which: (payout: PayoutRowFragment) => boolean; title: string }) {
  const rows = useSendingAgain()?.filter(which) ?? [];
  if (rows.length === 0) return null;
  const id = title.toLowerCase().replace(/[^a-z]+/g, '-');
  return (
    <section aria-labelledby={id}>
      <h2 id={id}>{title}</h2>
      <p>
        Their send has no known outcome. The gateway sends each again itself once the provider confirms it never
        received it.
      </p>
      <PayoutTable payouts={rows} caption={title} />
    </section>
  );
}
