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

export function Pager({
  page,
  shown,
  size,
  total,
  hasNext,
  onPrevious,
  onNext,
  label,
}: {
  page: number;
  shown: number;
  size: number;
  total?: number | null;
  hasNext: boolean;
  onPrevious: () => void;
  onNext: () => void;
  label: string;
}) {
  const start = (page - 1) * size + (shown > 0 ? 1 : 0);
  const end = (page - 1) * size + shown;
  return (
    <div className="pager" role="group" aria-label={`${label} pages`}>
      <span>
        {start}–{end}
        {total != null && ` of ${total.toLocaleString()}`}
      </span>
      <button type="button" onClick={onPrevious} disabled={page === 1}>
        Previous page
      </button>
      <button type="button" onClick={onNext} disabled={!hasNext}>
        Next page
      </button>
    </div>
  );
}
