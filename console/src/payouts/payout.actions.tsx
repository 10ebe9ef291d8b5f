import { useMutation } from '@apollo/client/react';
import { useId, useRef, useState, type FormEvent } from 'react';
import { allows, SCOPES } from '../api/api.session';
import { useSession } from '../app/app.session';
import type { PayoutRowFragment } from '../gql/graphql';
import { ErrorNote } from '../shared/error.note';
import { APPROVE_PAYOUT, CANCEL_PAYOUT, REJECT_PAYOUT } from './payouts.operations';

/**
 * What the payout's state allows this person: approve or reject one awaiting approval (not their
 * own request, as the gateway says with `requestedByYou`), cancel one scheduled or awaiting approval.
 * Each button is named by its word alone: the card or row around it names the payout. Reject opens
 * a form in its place (a reason, then Reject or Back). Each answer rewrites the payout in the cache,
 * so every list and page showing it follows.
 */
export function PayoutActions({ payout, onDone }: { payout: PayoutRowFragment; onDone?: () => void }) {
  const session = useSession();
  const [approve, approving] = useMutation(APPROVE_PAYOUT, { onCompleted: onDone });
  const [reject, rejecting] = useMutation(REJECT_PAYOUT, { onCompleted: onDone });
  const [cancel, cancelling] = useMutation(CANCEL_PAYOUT, { onCompleted: onDone });
  const [reasonOpen, setReasonOpen] = useState(false);
  const [reason, setReason] = useState('');
  const reasonId = useId();
  // Back puts the focus on Reject again, where it was before the form replaced it.
  const refocus = useRef(false);
  const { referenceId, status, approval } = payout;
  const own = approval?.requestedByYou === true;
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
  const back = () => {
    refocus.current = true;
    setReasonOpen(false);
  };
  const focusIfBack = (button: HTMLButtonElement | null) => {
    if (button && refocus.current) {
      refocus.current = false;
      button.focus();
    }
  };

  if (!canDecide && !canCancel && !own) return null;
  return (
    <div className="actions">
      {own && awaiting && <p className="muted">Your own request: another person approves it.</p>}
      {canDecide && !reasonOpen && (
        <>
          <button
            type="button"
            className="primary"
            disabled={busy}
            onClick={() => void approve({ variables: { referenceId } }).catch(swallow)}
          >
            Approve
          </button>
          <button type="button" disabled={busy} ref={focusIfBack} onClick={() => setReasonOpen(true)}>
            Reject
          </button>
        </>
      )}
      {canDecide && reasonOpen && (
        <form className="reason" onSubmit={submitReject}>
          <label htmlFor={reasonId}>Reason</label>
          {/* The form took the place of the Reject button that had the focus. */}
          <input id={reasonId} value={reason} onChange={(e) => setReason(e.target.value)} autoFocus />
          <button type="submit" disabled={busy}>
            Reject
          </button>
          <button type="button" disabled={busy} onClick={back}>
            Back
          </button>
        </form>
      )}
      {canCancel && !canDecide && (
        <button
          type="button"
          disabled={busy}
          onClick={() => void cancel({ variables: { referenceId } }).catch(swallow)}
        >
          Cancel
        </button>
      )}
      <ErrorNote error={approving.error ?? rejecting.error ?? cancelling.error} />
    </div>
  );
}
