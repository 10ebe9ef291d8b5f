import { useMutation, useQuery } from '@apollo/client/react';
import { ErrorNote } from '../shared/error.note';
import { Loading } from '../shared/loading';
import { BENEFICIARY, UPDATE_BENEFICIARY } from './beneficiaries.operations';
import { BeneficiaryForm } from './beneficiary.form';

/** Changing a beneficiary's details: read by id for the account number in full; new details then await approval. */
export function BeneficiaryEdit({ id, onClose }: { id: string; onClose: (note?: string) => void }) {
  const { data, error } = useQuery(BENEFICIARY, { variables: { id }, fetchPolicy: 'network-only' });
  const [update, updating] = useMutation(UPDATE_BENEFICIARY);
  const beneficiary = data?.beneficiary;
  if (error) return <ErrorNote error={error} />;
  if (!beneficiary) return <Loading what="the beneficiary" />;
  return (
    <BeneficiaryForm
      beneficiary={beneficiary}
      title={`Change ${beneficiary.name}`}
      submitLabel="Save changes"
      busy={updating.loading}
      error={updating.error}
      onCancel={() => onClose()}
      onSubmit={(input) =>
        void update({ variables: { id, input } }).then(
          ({ data: changed }) =>
            changed &&
            onClose(
              `${changed.updateBeneficiary.name} saved: ${changed.updateBeneficiary.status === 'AWAITING_APPROVAL' ? 'its new details await approval by another person' : 'ACTIVE'}.`,
            ),
          () => undefined,
        )
      }
    />
  );
}
