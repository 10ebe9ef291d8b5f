import { useMutation } from '@apollo/client/react';
import { useState, type FormEvent } from 'react';
import { allows, SCOPES } from '../api/api.session';
import { useSession } from '../app/app.session';
import type { PayoutRowFragment } from '../gql/graphql';
import { ErrorNote } from '../shared/error.note';
import { APPROVE_PAYOUT, CANCEL_PAYOUT, REJECT_PAYOUT } from './payouts.operations';

/**
 * What the payout's state allows this person: approve or reject one awaiting approval (not their
 * own request), cancel one scheduled or awaiting approval. Each answer rewrites the payout in the
 * cache, so every list and page showing it follows.
 */
export function PayoutActions({ payout, onDone }: { payout: PayoutRowFragment; onDone?: () => void }) {
  const session = useSession();
  const [approve, approving] = useMutation(APPROVE_PAYOUT, { onCompleted: onDone });
  const [reject, rejecting] = useMutation(REJECT_PAYOUT, { onCompleted: onDone });
  const [cancel, cancelling] = useMutation(CANCEL_PAYOUT, { onCompleted: onDone });
  const [reasonOpen, setReasonOpen] = useState(false);
  const [reason, setReason] = useState('');
  const { referenceId, status, approval } = payout;
  const own = session.subject !== undefined && approval?.requestedBy === session.subject;
  const awaiting = status === 'AWAITING_APPROVAL';
  const canDecide = awaiting && !own && allows(session, SCOPES.approve);
  const canCancel =
    (status === 'SCHEDULED' && allows(session, SCOPES.write)) ||
    (awaiting && (own ? allows(session, SCOPES.write) : allows(session, SCOPES.approve)));
  const busy = approving.loading || rejecting.loading || cancelling.loading;
  const swallow = () => undefined;

  const submitReject = (event: FormEvent) => {
    event.preventDefault();
    reject({ variables: { referenceId, reason: reason.trim() || null } }).catch(swallow);
  };

  if (!canDecide && !canCancel && !own) return null;
  return (
    <div className="actions">
      {own && awaiting && <p className="muted">Your own request: another person approves it.</p>}
      {canDecide && (
        <>
          <button
            type="button"
            className="primary"
            disabled={busy}
            onClick={() => void approve({ variables: { referenceId } }).catch(swallow)}
            aria-label={`Approve ${referenceId}`}
          >
            Approve
          </button>
          <button
            type="button"
            disabled={busy}
            onClick={() => setReasonOpen((open) => !open)}
            aria-expanded={reasonOpen}
            aria-label={`Reject ${referenceId}`}
          >
            Reject
          </button>
        </>
      )}
      {canCancel && !canDecide && (
        <button
          type="button"
          disabled={busy}
          onClick={() => void cancel({ variables: { referenceId } }).catch(swallow)}
          aria-label={`Cancel ${referenceId}`}
        >
          Cancel
        </button>
      )}
      {reasonOpen && (
        <form className="reason" onSubmit={submitReject}>
          <label htmlFor={`reason-${referenceId}`}>Reason for rejecting</label>
          <input id={`reason-${referenceId}`} value={reason} onChange={(e) => setReason(e.target.value)} />
          <button type="submit" disabled={busy}>
            Confirm reject
          </button>
        </form>
      )}
      <ErrorNote error={approving.error ?? rejecting.error ?? cancelling.error} />
    </div>
  );
}
