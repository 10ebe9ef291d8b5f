import { useMutation, useQuery } from '@apollo/client/react';
import { useState } from 'react';
import { ErrorNote } from '../shared/error.note';
import { formatMoney } from '../shared/money';
import { formatTime } from '../shared/time';
import { RECONCILIATION_RUN, START_RECONCILIATION } from './finance.operations';

/** A reconciliation run over the statement's window, followed every second until DONE or FAILED. */
export function ReconciliationPanel({ window }: { window: { from: string; to: string } | undefined }) {
  const [start, starting] = useMutation(START_RECONCILIATION);
  const [runId, setRunId] = useState<string>();
  const run = useQuery(RECONCILIATION_RUN, {
    variables: { id: runId ?? '' },
    skip: !runId,
    pollInterval: 1000,
  });
  const current = run.data?.reconciliationRun ?? starting.data?.startReconciliation;
  if (current && current.state !== 'RUNNING') run.stopPolling();
  return (
    <section className="card" aria-labelledby="reconciliation">
      <h2 id="reconciliation">Reconciliation</h2>
      <p className="muted">Compares the window&apos;s payouts with what the provider says, and the wallet with them.</p>
      <button
        type="button"
        disabled={!window || starting.loading || current?.state === 'RUNNING'}
        onClick={() =>
          window &&
          void start({ variables: window }).then(
            ({ data }) => setRunId(data?.startReconciliation.id),
            () => undefined,
          )
        }
      >
        Start reconciliation
      </button>
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
