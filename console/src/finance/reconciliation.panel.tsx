import { useMutation, useQuery } from '@apollo/client/react';
import { useState, type FormEvent } from 'react';
import { ErrorNote } from '../shared/error.note';
import { DayRangeFields, useDayRange } from '../shared/day-range';
import { formatMoney } from '../shared/money';
import { dayWindow, formatTime } from '../shared/time';
import { RECONCILIATION_RUN, START_RECONCILIATION } from './finance.operations';

/** A reconciliation run over a window of days of its own (today at first), followed every second until DONE or FAILED. */
export function ReconciliationPanel() {
  const [range, setRange] = useDayRange();
  const days = dayWindow(range.from, range.to);
  const [start, starting] = useMutation(START_RECONCILIATION);
  const [runId, setRunId] = useState<string>();
  const run = useQuery(RECONCILIATION_RUN, {
    variables: { id: runId ?? '' },
    skip: !runId,
    pollInterval: 1000,
  });
  const current = run.data?.reconciliationRun ?? starting.data?.startReconciliation;
  if (current && current.state !== 'RUNNING') run.stopPolling();
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (days)
      void start({ variables: days }).then(
        ({ data }) => setRunId(data?.startReconciliation.id),
        () => undefined,
      );
  };
  return (
    <section className="card" aria-labelledby="reconciliation">
      <h2 id="reconciliation">Reconciliation</h2>
      <p className="muted">Compares the payouts of these days with what the provider says, and the wallet with them.</p>
      <form className="filters" onSubmit={submit}>
        <DayRangeFields id="reconciliation" range={range} onChange={setRange} />
        <div className="field actions">
          <button type="submit" disabled={!days || starting.loading || current?.state === 'RUNNING'}>
            Start reconciliation
          </button>
        </div>
      </form>
      <ErrorNote error={starting.error ?? run.error} />
      {current && (
        <div role="status">
          <p>
            Run {current.state}: {current.checked} of {current.total} payouts checked, started{' '}
            {formatTime(current.startedAt)}
            {current.failure && `: ${current.failure}`}
          </p>
          {current.state === 'DONE' && current.discrepancies.length === 0 && <p>No discrepancy.</p>}
          {current.discrepancies.length > 0 && (
            <ul>
              {current.discrepancies.map((d) => (
                <li key={`${d.referenceId}-${d.kind}`}>
                  {d.referenceId}: {d.kind}, gateway {d.gatewayStatus}, provider {d.providerStatus ?? 'none'}
                  {d.resolved ? ' (resolved)' : ' (needs a person)'}
                </li>
              ))}
            </ul>
          )}
          {current.balance && (
            <p>
              Wallet: {formatMoney(current.balance.opening, current.balance.currency)} to{' '}
              {formatMoney(current.balance.closing, current.balance.currency)}; explained{' '}
              {formatMoney(current.balance.explained)}, unexplained {formatMoney(current.balance.unexplained)}
            </p>
          )}
        </div>
      )}
    </section>
  );
}
