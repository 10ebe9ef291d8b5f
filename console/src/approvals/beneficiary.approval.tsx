import { useMutation, useQuery } from '@apollo/client/react';
import { APPROVE_BENEFICIARY, BENEFICIARY } from '../beneficiaries/beneficiaries.operations';
import { CHANNEL_NAME } from '../payouts/payout.channel';
import { ErrorNote } from '../shared/error.note';
import { formatTime } from '../shared/time';

/**
 * One beneficiary awaiting approval, read in full (beneficiary(id) gives the whole account number),
 * approved with the detailsFingerprint of exactly what is shown: details changed since are
 * STALE_APPROVAL and nothing is approved. The read stays out of Apollo's cache, where the Approvals
 * list, asked again every 10 s, writes the same beneficiary with its account number masked; the list
 * keys this card by the fingerprint, so details changed meanwhile are read again.
 */
export function BeneficiaryApproval({ id, onDone }: { id: string; onDone: () => void }) {
  const { data, error } = useQuery(BENEFICIARY, { variables: { id }, fetchPolicy: 'no-cache' });
  const [approve, approving] = useMutation(APPROVE_BENEFICIARY, { onCompleted: onDone });
  const beneficiary = data?.beneficiary;
  if (error) return <li className="card">{<ErrorNote error={error} />}</li>;
  if (!beneficiary) return null;
  return (
    <li className="card" aria-label={`Beneficiary ${beneficiary.name}`}>
      <h3>{beneficiary.name}</h3>
      <dl className="details">
        <dt>Channel</dt>
        <dd>{CHANNEL_NAME[beneficiary.channel]}</dd>
        <dt>Account</dt>
        <dd>{beneficiary.accountNumber}</dd>
        {beneficiary.accountHolderName && (
          <>
            <dt>Account holder</dt>
            <dd>{beneficiary.accountHolderName}</dd>
          </>
        )}
        {beneficiary.swiftCode && (
          <>
            <dt>SWIFT code</dt>
            <dd>{beneficiary.swiftCode}</dd>
          </>
        )}
        <dt>Added by</dt>
        <dd>{beneficiary.createdBy}</dd>
        <dt>Details set</dt>
        <dd>{formatTime(beneficiary.changedAt)}</dd>
      </dl>
      {beneficiary.requestedByYou ? (
        <p className="muted">You made this change: another person approves it.</p>
      ) : (
        <button
          type="button"
          className="primary"
          disabled={approving.loading}
          onClick={() =>
            void approve({ variables: { id, expectedDetails: beneficiary.detailsFingerprint } }).catch(() => undefined)
          }
        >
          Approve
        </button>
      )}
      <ErrorNote error={approving.error} />
    </li>
  );
}
