import { useApolloClient, useQuery } from '@apollo/client/react';
import { useEffect, useRef, useState } from 'react';
import { allows, SCOPES } from '../api/api.session';
import { useSession } from '../app/app.session';
import type { PayoutListQuery, PayoutRowFragment } from '../gql/graphql';
import { ErrorNote } from '../shared/error.note';
import { Loading } from '../shared/loading';
import { Pager, useCursors } from '../shared/pager';
import { download } from '../shared/csv';
import { PayoutFiltersForm } from './payout.filters-form';
import { accountMatches, apiFilter, matches, NO_FILTERS, type PayoutFilters } from './payout.filters';
import { PayoutTable } from './payout.table';
import { payoutsCsv } from './payouts.csv';
import { usePayoutChanges } from './payout.changes';
import { PAYOUT_LIST } from './payouts.operations';

const PAGE = 25;
/** The API's largest page: an export reads in pages this size. */
const EXPORT_PAGE = 100;

/**
 * Every payout, newest first, filtered and paged by the API. Live: a change rewrites its row through
 * Apollo's cache (payouts are keyed by referenceId), and a new payout that fits the filters reloads
 * the first page, so it appears at the top without a reload. Export CSV is offered with
 * payouts:export, the gateway's scope for exporting payouts in bulk.
 */
export function PayoutsScreen() {
  const client = useApolloClient();
  const exports = allows(useSession(), SCOPES.export);
  const [filters, setFilters] = useState<PayoutFilters>(NO_FILTERS);
  const cursors = useCursors();
  const filter = apiFilter(filters);
  const { data, previousData, loading, error, refetch } = useQuery(PAYOUT_LIST, {
    variables: { first: PAGE, after: cursors.after, filter },
    notifyOnNetworkStatusChange: true,
  });
  const page = (data ?? previousData)?.disbursementHistory;
  const rows = (page?.edges ?? []).map((edge) => edge.node).filter((payout) => accountMatches(filters, payout));
  const shown = useRef(new Set<string>());
  shown.current = new Set(rows.map((row) => row.referenceId));
  const onFirstPage = cursors.page === 1;

  const pending = useRef<ReturnType<typeof setTimeout>>(undefined);
  useEffect(() => () => clearTimeout(pending.current), []);
  const liveError = usePayoutChanges((payout) => {
    if (payout && (shown.current.has(payout.referenceId) || !onFirstPage || !matches(filters, payout))) return;
    // A burst of new payouts reloads the page once.
    clearTimeout(pending.current);
    pending.current = setTimeout(() => void refetch(), 200);
  });

  const [exporting, setExporting] = useState<{ count: number } | { error: unknown } | undefined>();
  const exportCsv = async () => {
    setExporting({ count: 0 });
    try {
      const all: PayoutRowFragment[] = [];
      let after: string | null | undefined = null;
      do {
        const history: PayoutListQuery['disbursementHistory'] | undefined = (
          await client.query({
            query: PAYOUT_LIST,
            variables: { first: EXPORT_PAGE, after, filter },
            fetchPolicy: 'network-only',
          })
        ).data?.disbursementHistory;
        all.push(...(history?.edges ?? []).map((edge) => edge.node).filter((p) => accountMatches(filters, p)));
        after = history?.pageInfo.hasNextPage ? history.pageInfo.endCursor : undefined;
        setExporting({ count: all.length });
      } while (after);
      download(`payouts-${new Date().toISOString().slice(0, 10)}.csv`, payoutsCsv(all));
      setExporting(undefined);
    } catch (exportError) {
      setExporting({ error: exportError });
    }
  };

  const apply = (next: PayoutFilters) => {
    setFilters(next);
    cursors.reset();
  };

  return (
    <>
      <div className="screen-head">
        <h1>Payouts</h1>
        {exports && (
          <button
            type="button"
            onClick={() => void exportCsv()}
            disabled={exporting !== undefined && 'count' in exporting}
          >
            Export CSV
          </button>
        )}
      </div>
      <PayoutFiltersForm filters={filters} onChange={apply} />
      {exporting && 'count' in exporting && (
        <p role="status">Exporting… {exporting.count.toLocaleString()} payouts so far</p>
      )}
      {exporting && 'error' in exporting && <ErrorNote error={exporting.error} title="The export stopped" />}
      <ErrorNote error={liveError} title="Live updates stopped" />
      <ErrorNote error={error} />
      {loading && !page && <Loading what="payouts" />}
      {page && rows.length === 0 && !loading && <p className="empty">No payouts match these filters.</p>}
      {rows.length > 0 && <PayoutTable payouts={rows} caption="Payouts, newest first" />}
      {page && <Pager label="Payouts" cursors={cursors} size={PAGE} connection={page} />}
    </>
  );
}
