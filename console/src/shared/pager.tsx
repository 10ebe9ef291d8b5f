import { useState } from 'react';

/**
 * Forward cursors remembered, so "Previous" goes back over pages already seen: the API pages one
 * way only (newest first for payouts), and its cursors stay valid while new payouts arrive.
 */
export function useCursors() {
  const [stack, setStack] = useState<(string | null)[]>([null]);
  return {
    after: stack[stack.length - 1],
    page: stack.length,
    next: (cursor: string) => setStack((s) => [...s, cursor]),
    previous: () => setStack((s) => (s.length > 1 ? s.slice(0, -1) : s)),
    reset: () => setStack([null]),
  };
}

export type Cursors = ReturnType<typeof useCursors>;

/** What the pager reads of a connection page: every list the console pages is one. */
interface ConnectionPage {
  edges: readonly unknown[];
  totalCount?: number | null;
  pageInfo: { hasNextPage: boolean; endCursor?: string | null };
}

/** Previous and next over a connection's pages, with the range shown (and the total when the API counts it). */
export function Pager({
  label,
  cursors,
  size,
  connection,
}: {
  label: string;
  cursors: Cursors;
  size: number;
  connection: ConnectionPage;
}) {
  const { page } = cursors;
  const shown = connection.edges.length;
  const total = connection.totalCount;
  const { hasNextPage, endCursor } = connection.pageInfo;
  const start = (page - 1) * size + (shown > 0 ? 1 : 0);
  const end = (page - 1) * size + shown;
  return (
    <div className="pager" role="group" aria-label={`${label} pages`}>
      <span>
        {start}–{end}
        {total != null && ` of ${total.toLocaleString()}`}
      </span>
      <button type="button" onClick={cursors.previous} disabled={page === 1}>
        Previous page
      </button>
      <button type="button" onClick={() => endCursor && cursors.next(endCursor)} disabled={!hasNextPage}>
        Next page
      </button>
    </div>
  );
}
