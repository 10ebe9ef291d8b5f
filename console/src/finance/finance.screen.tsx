import { useLazyQuery, useQuery } from '@apollo/client/react';
import { type FormEvent } from 'react';
import { allows, SCOPES } from '../api/api.session';
import { useSession } from '../app/app.session';
import { download, toCsv } from '../shared/csv';
import { ErrorNote } from '../shared/error.note';
import { DayRangeFields, useDayRange } from '../shared/day-range';
import { Loading } from '../shared/loading';
import { formatMoney } from '../shared/money';
import { dayWindow, formatTime } from '../shared/time';
import { ALLOWANCE, AUDIT_VERIFICATION, STATEMENT, WALLET } from './finance.operations';
import { ReconciliationPanel } from './reconciliation.panel';

const orNone = (amount: string | null, currency: string) => (amount ? formatMoney(amount, currency) : 'no limit');

/** The audit chain checked by the gateway: at load, and again on request (it reads every entry). */
function AuditCheck() {
  const { data, loading, error, refetch } = useQuery(AUDIT_VERIFICATION, { notifyOnNetworkStatusChange: true });
  const result = data?.auditVerification;
  return (
    <section className="card" aria-labelledby="audit-check">
      <h2 id="audit-check">Audit trail</h2>
      {loading && <Loading what="the audit check" />}
      <ErrorNote error={error} />
      {result && (
        <p role="status">
          {result.verified
            ? `Verified: all ${result.entries} entries chain and verify.`
            : `Not verified: fails at entry ${result.brokenAt ?? '?'}${result.reason ? `: ${result.reason}` : ''}.`}
          {result.checkpoint &&
            ` Latest signed checkpoint: entry ${result.checkpoint.sequence} at ${formatTime(result.checkpoint.at)}.`}
        </p>
      )}
      <button type="button" onClick={() => void refetch()} disabled={loading}>
        Check the trail
      </button>
    </section>
  );
}

/** Wallet balance, what may still be sent today, a statement for a window, reconciliation runs, and the audit check. */
export function FinanceScreen() {
  const session = useSession();
  const auditor = allows(session, SCOPES.audit);
  const wallet = useQuery(WALLET);
  const allowance = useQuery(ALLOWANCE);
  const [range, setRange] = useDayRange();
  const [loadStatement, statement] = useLazyQuery(STATEMENT);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const days = dayWindow(range.from, range.to);
    if (days) void loadStatement({ variables: days }).catch(() => undefined);
  };
  const lines = statement.data?.payoutStatement.lines ?? [];
  const saveCsv = () =>
    download(
      `statement-${range.from}-${range.to}.csv`,
      toCsv([
        ['currency', 'status', 'count', 'amount'],
        ...lines.map((l) => [l.currency, l.status, String(l.count), l.amount]),
      ]),
    );

  return (
    <>
      <h1>Finance</h1>
      <div className="grid">
        <section className="card" aria-labelledby="wallet">
          <h2 id="wallet">Wallet balance</h2>
          {wallet.loading && <Loading what="the balance" />}
          <ErrorNote error={wallet.error} />
          {wallet.data && (
            <p className="figure">
              {formatMoney(wallet.data.walletBalance.amount, wallet.data.walletBalance.currency)}
              <small> as of {formatTime(wallet.data.walletBalance.asOf)}</small>
            </p>
          )}
        </section>
        <section className="card" aria-labelledby="allowance">
          <h2 id="allowance">Payout allowance today</h2>
          {allowance.loading && <Loading what="the allowance" />}
          <ErrorNote error={allowance.error} />
          {allowance.data && allowance.data.payoutAllowance.length === 0 && <p>No payout control limits today.</p>}
          {allowance.data?.payoutAllowance.map((a) => (
            <dl className="details" key={a.currency}>
              <dt>Left today ({a.currency})</dt>
              <dd>{orNone(a.dailyRemaining, a.currency)}</dd>
              <dt>Left for you today</dt>
              <dd>{orNone(a.userDailyRemaining, a.currency)}</dd>
              <dt>Largest payout</dt>
              <dd>{orNone(a.maxAmount, a.currency)}</dd>
              <dt>Approval above</dt>
              <dd>{orNone(a.approvalAbove, a.currency)}</dd>
            </dl>
          ))}
        </section>
      </div>
      <section className="card" aria-labelledby="statement">
        <h2 id="statement">Statement</h2>
        <form className="filters" onSubmit={submit}>
          <DayRangeFields id="statement" range={range} onChange={setRange} />
          <div className="field actions">
            <button type="submit">Show statement</button>
          </div>
        </form>
        {statement.loading && <Loading what="the statement" />}
        <ErrorNote error={statement.error} />
        {statement.data && lines.length === 0 && <p className="empty">No payout in this window.</p>}
        {lines.length > 0 && (
          <>
            <table className="rows">
              <caption className="visually-hidden">Statement lines</caption>
              <thead>
                <tr>
                  <th scope="col">Currency</th>
                  <th scope="col">Status</th>
                  <th scope="col" className="num">
                    Payouts
                  </th>
                  <th scope="col" className="num">
                    Amount
                  </th>
                </tr>
              </thead>
              <tbody>
                {lines.map((line) => (
                  <tr key={`${line.currency}-${line.status}`}>
                    <td data-label="Currency">{line.currency}</td>
                    <td data-label="Status">{line.status}</td>
                    <td data-label="Payouts" className="num">
                      {line.count}
                    </td>
                    <td data-label="Amount" className="num">
                      {formatMoney(line.amount, line.currency)}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
            <button type="button" onClick={saveCsv}>
              Download statement CSV
            </button>
          </>
        )}
      </section>
      {auditor && <ReconciliationPanel />}
      {auditor && <AuditCheck />}
    </>
  );
}
