import { useMutation, useQuery } from '@apollo/client/react';
import { useState, type FormEvent } from 'react';
import { allows, SCOPES } from '../api/api.session';
import { Link } from '../app/app.router';
import { useSession } from '../app/app.session';
import type { BeneficiaryStatus } from '../gql/graphql';
import { CHANNEL_NAME } from '../payouts/payout.channel';
import { ErrorNote } from '../shared/error.note';
import { Loading } from '../shared/loading';
import { maskAccount } from '../shared/money';
import { Pager, useCursors } from '../shared/pager';
import { formatTime } from '../shared/time';
import { ARCHIVE_BENEFICIARY, BENEFICIARY_LIST, CREATE_BENEFICIARY } from './beneficiaries.operations';
import { BeneficiaryEdit } from './beneficiary.edit';
import { BeneficiaryForm } from './beneficiary.form';

const PAGE = 25;

/**
 * The beneficiary book: search it, add one, change one's details (then awaiting approval), archive one, pay one.
 * Each row is named "Beneficiary <name>", so its actions need no more than their word. A token that
 * may add beneficiaries but not read them (beneficiaries:write alone) is offered adding only.
 */
export function BeneficiariesScreen() {
  const session = useSession();
  const reads = allows(session, SCOPES.beneficiariesRead);
  const writes = allows(session, SCOPES.beneficiariesWrite);
  const pays = allows(session, SCOPES.write);
  const [search, setSearch] = useState('');
  const [status, setStatus] = useState<BeneficiaryStatus | ''>('');
  const [applied, setApplied] = useState({ search: '', status: '' as BeneficiaryStatus | '' });
  const cursors = useCursors();
  const { data, previousData, loading, error, refetch } = useQuery(BENEFICIARY_LIST, {
    variables: {
      first: PAGE,
      after: cursors.after,
      filter: { search: applied.search || undefined, status: applied.status || undefined },
    },
    notifyOnNetworkStatusChange: true,
    skip: !reads,
  });
  const [adding, setAdding] = useState(false);
  const [editing, setEditing] = useState<string>();
  const [note, setNote] = useState<string>();
  const [create, creating] = useMutation(CREATE_BENEFICIARY);
  const [archive, archiving] = useMutation(ARCHIVE_BENEFICIARY);
  const page = (data ?? previousData)?.beneficiaries;

  const submitSearch = (event: FormEvent) => {
    event.preventDefault();
    setApplied({ search: search.trim(), status });
    cursors.reset();
  };
  const done = (text?: string) => {
    setNote(text);
    setEditing(undefined);
    setAdding(false);
    if (reads) void refetch();
  };

  return (
    <>
      <div className="screen-head">
        <h1>Beneficiaries</h1>
        {writes && (
          <button type="button" onClick={() => setAdding((open) => !open)} aria-expanded={adding}>
            Add beneficiary
          </button>
        )}
      </div>
      {adding && (
        <BeneficiaryForm
          title="New beneficiary"
          submitLabel="Save beneficiary"
          busy={creating.loading}
          error={creating.error}
          onCancel={() => setAdding(false)}
          onSubmit={(input) =>
            void create({ variables: { input } }).then(
              ({ data: created }) =>
                created && done(`${created.createBeneficiary.name} saved: ${created.createBeneficiary.status}.`),
              () => undefined,
            )
          }
        />
      )}
      {editing && <BeneficiaryEdit id={editing} onClose={(text) => done(text)} />}
      {note && (
        <p className="note" role="status">
          {note}
        </p>
      )}
      <ErrorNote error={archiving.error} />
      {!reads && (
        <p>
          Your token may add beneficiaries but not read them: listing, changing and archiving need beneficiaries:read.
        </p>
      )}
      {reads && (
        <form className="filters" role="search" aria-label="Search beneficiaries" onSubmit={submitSearch}>
          <div className="field grow">
            <label htmlFor="beneficiary-search">Name or account</label>
            <input id="beneficiary-search" type="search" value={search} onChange={(e) => setSearch(e.target.value)} />
          </div>
          <div className="field">
            <label htmlFor="beneficiary-status">Status</label>
            <select
              id="beneficiary-status"
              value={status}
              onChange={(e) => setStatus(e.target.value as BeneficiaryStatus | '')}
            >
              <option value="">Any status</option>
              <option>ACTIVE</option>
              <option>AWAITING_APPROVAL</option>
              <option>ARCHIVED</option>
            </select>
          </div>
          <div className="field actions">
            <button type="submit">Search</button>
          </div>
        </form>
      )}
      <ErrorNote error={error} />
      {loading && !page && <Loading what="beneficiaries" />}
      {page && page.edges.length === 0 && <p className="empty">No beneficiary matches.</p>}
      {page && page.edges.length > 0 && (
        <table className="rows">
          <caption className="visually-hidden">Beneficiaries</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Channel</th>
              <th scope="col">Account</th>
              <th scope="col">Status</th>
              <th scope="col">Details set</th>
              <th scope="col">Action</th>
            </tr>
          </thead>
          <tbody>
            {page.edges.map(({ node }) => (
              <tr key={node.id} aria-label={`Beneficiary ${node.name}`}>
                <td data-label="Name">{node.name}</td>
                <td data-label="Channel">{CHANNEL_NAME[node.channel]}</td>
                <td data-label="Account">{maskAccount(node.accountNumber)}</td>
                <td data-label="Status">{node.status}</td>
                <td data-label="Details set">{formatTime(node.changedAt)}</td>
                <td data-label="Action">
                  <div className="actions">
                    {pays && node.status === 'ACTIVE' && (
                      <Link to={`/new?beneficiary=${encodeURIComponent(node.id)}`}>Pay</Link>
                    )}
                    {writes && node.status !== 'ARCHIVED' && (
                      <>
                        <button type="button" onClick={() => setEditing(node.id)}>
                          Change
                        </button>
                        <button
                          type="button"
                          disabled={archiving.loading}
                          onClick={() =>
                            void archive({ variables: { id: node.id } }).then(
                              ({ data: archived }) => {
                                const cancelled = archived?.archiveBeneficiary.cancelledPayouts ?? [];
                                done(
                                  `${node.name} archived${cancelled.length ? `; cancelled, never sent: ${cancelled.join(', ')}` : ''}.`,
                                );
                              },
                              () => undefined,
                            )
                          }
                        >
                          Archive
                        </button>
                      </>
                    )}
                  </div>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {page && <Pager label="Beneficiaries" cursors={cursors} size={PAGE} connection={page} />}
    </>
  );
}
