import { useQuery } from '@apollo/client/react';
import { useState, type FormEvent } from 'react';
import { Link, useLocation } from '../app/app.router';
import { ErrorNote } from '../shared/error.note';
import { Field } from '../shared/field';
import { Loading } from '../shared/loading';
import { formatMoney } from '../shared/money';
import { Pager, useCursors } from '../shared/pager';
import { formatTime } from '../shared/time';
import { AUDIT_TRAIL } from './audit.operations';

const PAGE = 50;

/** The audit trail, oldest first as the API keeps it, filtered by payout or by person. */
export function AuditScreen() {
  const { params } = useLocation();
  const [draft, setDraft] = useState({ referenceId: params.get('reference') ?? '', actor: '' });
  const [filter, setFilter] = useState(draft);
  const cursors = useCursors();
  const { data, previousData, loading, error } = useQuery(AUDIT_TRAIL, {
    variables: {
      first: PAGE,
      after: cursors.after,
      filter: { referenceId: filter.referenceId || undefined, actor: filter.actor || undefined },
    },
  });
  const page = (data ?? previousData)?.auditTrail;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setFilter({ referenceId: draft.referenceId.trim(), actor: draft.actor.trim() });
    cursors.reset();
  };
  return (
    <>
      <h1>Audit</h1>
      <form className="filters" role="search" aria-label="Filter the audit trail" onSubmit={submit}>
        <Field
          id="audit-reference"
          label="Payout reference"
          value={draft.referenceId}
          onChange={(e) => setDraft({ ...draft, referenceId: e.target.value })}
        />
        <Field
          id="audit-actor"
          label="Person"
          value={draft.actor}
          onChange={(e) => setDraft({ ...draft, actor: e.target.value })}
        />
        <div className="field actions">
          <button type="submit">Apply</button>
        </div>
      </form>
      <ErrorNote error={error} />
      {loading && !page && <Loading what="the audit trail" />}
      {page && page.edges.length === 0 && <p className="empty">No audit entry matches.</p>}
      {page && page.edges.length > 0 && (
        <table className="rows">
          <caption className="visually-hidden">Audit entries, oldest first</caption>
          <thead>
            <tr>
              <th scope="col">#</th>
              <th scope="col">Time</th>
              <th scope="col">Action</th>
              <th scope="col">Who</th>
              <th scope="col">Payout</th>
              <th scope="col">Detail</th>
            </tr>
          </thead>
          <tbody>
            {page.edges.map(({ node }) => (
              <tr key={node.sequence}>
                <td data-label="#">{node.sequence}</td>
                <td data-label="Time">{formatTime(node.at)}</td>
                <td data-label="Action">{node.action}</td>
                <td data-label="Who">{node.actor ?? 'gateway'}</td>
                <td data-label="Payout" className="ref">
                  {node.referenceId && (
                    <Link to={`/payouts/${encodeURIComponent(node.referenceId)}`}>{node.referenceId}</Link>
                  )}
                </td>
                <td data-label="Detail">
                  {[node.status, node.amount && formatMoney(node.amount, node.currency), node.detail]
                    .filter(Boolean)
                    .join(' · ')}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {page && <Pager label="Audit entries" cursors={cursors} size={PAGE} connection={page} />}
    </>
  );
}
