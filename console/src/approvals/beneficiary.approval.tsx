import { useMutation, useQuery } from '@apollo/client/react';
import { useSession } from '../app/app.session';
import { APPROVE_BENEFICIARY, BENEFICIARY } from '../beneficiaries/beneficiaries.operations';
import { ErrorNote } from '../shared/error.note';
import { formatTime } from '../shared/time';

/**
 * One beneficiary awaiting approval, read in full (beneficiary(id) gives the whole account number),
 * approved with the detailsFingerprint of exactly what is shown: details changed since are
 * STALE_APPROVAL and nothing is approved.
 */
export function BeneficiaryApproval({ id, onDone }: { id: string; onDone: () => void }) {
  const session = useSession();
  const { data, error } = useQuery(BENEFICIARY, { variables: { id }, fetchPolicy: 'network-only' });
  const [approve, approving] = useMutation(APPROVE_BENEFICIARY, { onCompleted: onDone });
  const beneficiary = data?.beneficiary;
  if (error) return <li className="card">{<ErrorNote error={error} />}</li>;
  if (!beneficiary) return null;
  // The API names who created a beneficiary, not who changed it: a change by this person is refused by the gateway (FORBIDDEN).
  const own =
    session.subject !== undefined &&
    beneficiary.createdBy === session.subject &&
    beneficiary.changedAt === beneficiary.createdAt;
  return (
    <li className="card" aria-label={`Beneficiary ${beneficiary.name}`}>
      <h3>{beneficiary.name}</h3>
      <dl className="details">
        <dt>Channel</dt>
        <dd>{beneficiary.channel === 'BANK' ? 'Bank' : 'Mobile money'}</dd>
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
      {own ? (
        <p className="muted">You added it: another person approves it.</p>
      ) : (
        <button
          type="button"
          className="primary"
          disabled={approving.loading}
          aria-label={`Approve beneficiary ${beneficiary.name}`}
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
