import { useState, type FormEvent } from 'react';
import { CHANNELS, NO_FILTERS, STATUSES, type PayoutFilters } from './payout.filters';

/** The list's filters; applied on submit (Enter in any field) or at once for the selects. */
export function PayoutFiltersForm({
  filters,
  onChange,
}: {
  filters: PayoutFilters;
  onChange: (filters: PayoutFilters) => void;
}) {
  const [draft, setDraft] = useState(filters);
  const set = <K extends keyof PayoutFilters>(key: K, value: PayoutFilters[K], now = false) => {
    const next = { ...draft, [key]: value };
    setDraft(next);
    if (now) onChange(next);
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onChange(draft);
  };
  return (
    <form className="filters" onSubmit={submit} role="search" aria-label="Filter payouts">
      <div className="field">
        <label htmlFor="filter-status">Status</label>
        <select
          id="filter-status"
          value={draft.status}
          onChange={(e) => set('status', e.target.value as PayoutFilters['status'], true)}
        >
          <option value="">Any status</option>
          {STATUSES.map((status) => (
            <option key={status}>{status}</option>
          ))}
        </select>
      </div>
      <div className="field">
        <label htmlFor="filter-channel">Channel</label>
        <select
          id="filter-channel"
          value={draft.channel}
          onChange={(e) => set('channel', e.target.value as PayoutFilters['channel'], true)}
        >
          <option value="">Any channel</option>
          {CHANNELS.map((channel) => (
            <option key={channel} value={channel}>
              {channel === 'BANK' ? 'Bank' : 'Mobile money'}
            </option>
          ))}
        </select>
      </div>
      <div className="field">
        <label htmlFor="filter-from">From</label>
        <input id="filter-from" type="date" value={draft.from} onChange={(e) => set('from', e.target.value)} />
      </div>
      <div className="field">
        <label htmlFor="filter-to">To</label>
        <input id="filter-to" type="date" value={draft.to} onChange={(e) => set('to', e.target.value)} />
      </div>
      <div className="field grow">
        <label htmlFor="filter-text">Reference or account</label>
        <input
          id="filter-text"
          type="search"
          value={draft.text}
          onChange={(e) => set('text', e.target.value)}
          aria-describedby="filter-text-hint"
        />
        <small id="filter-text-hint">
          A reference matches from its start; digits match account numbers on the page shown.
        </small>
      </div>
      <div className="field actions">
        <button type="submit">Apply</button>
        <button
          type="button"
          onClick={() => {
            setDraft(NO_FILTERS);
            onChange(NO_FILTERS);
          }}
        >
          Clear
        </button>
      </div>
    </form>
  );
}
