import { useState, type FormEvent } from 'react';
import type { BeneficiaryInput, BeneficiaryRowFragment, DisbursementChannel } from '../gql/graphql';
import { ErrorNote } from '../shared/error.note';
import { Field } from '../shared/field';
import { problemsOf } from '../shared/problem';

const TEXT_FIELDS = [
  ['accountHolderName', 'Account holder name'],
  ['firstName', 'First name'],
  ['lastName', 'Last name'],
  ['swiftCode', 'SWIFT code'],
  ['phoneNumber', 'Phone number'],
  ['email', 'Email'],
] as const;

type Draft = Record<'name' | 'accountNumber' | (typeof TEXT_FIELDS)[number][0], string> & {
  channel: DisbursementChannel;
};

function draftOf(beneficiary?: BeneficiaryRowFragment): Draft {
  return {
    name: beneficiary?.name ?? '',
    channel: beneficiary?.channel ?? 'MOBILE_MONEY',
    accountNumber: beneficiary?.accountNumber ?? '',
    accountHolderName: beneficiary?.accountHolderName ?? '',
    firstName: beneficiary?.firstName ?? '',
    lastName: beneficiary?.lastName ?? '',
    swiftCode: beneficiary?.swiftCode ?? '',
    phoneNumber: beneficiary?.phoneNumber ?? '',
    email: beneficiary?.email ?? '',
  };
}

/**
 * A beneficiary's name and account details (the account number in full: `beneficiary` is read by
 * id for a change). Bank takes every bank field, mobile money the number alone, as the API says.
 */
export function BeneficiaryForm({
  beneficiary,
  title,
  submitLabel,
  onSubmit,
  onCancel,
  busy,
  error,
}: {
  beneficiary?: BeneficiaryRowFragment;
  title: string;
  submitLabel: string;
  onSubmit: (input: BeneficiaryInput) => void;
  onCancel?: () => void;
  busy: boolean;
  error: unknown;
}) {
  const [draft, setDraft] = useState(() => draftOf(beneficiary));
  const prefix = beneficiary ? `edit-${beneficiary.id}` : 'new-beneficiary';
  const bad = new Set(problemsOf(error).flatMap((p) => (p.fields ?? []).map((f) => f.replace(/^input\./, ''))));
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const bank = draft.channel === 'BANK';
    const optional = (value: string) => (bank && value.trim() ? value.trim() : undefined);
    onSubmit({
      name: draft.name.trim(),
      channel: draft.channel,
      accountNumber: draft.accountNumber.trim(),
      accountHolderName: optional(draft.accountHolderName),
      firstName: optional(draft.firstName),
      lastName: optional(draft.lastName),
      swiftCode: optional(draft.swiftCode),
      phoneNumber: optional(draft.phoneNumber),
      email: optional(draft.email),
    });
  };
  return (
    <form className="card form" onSubmit={submit} aria-label={title} noValidate>
      <h2>{title}</h2>
      <Field
        id={`${prefix}-name`}
        label="Name"
        value={draft.name}
        invalid={bad.has('name')}
        onChange={(e) => setDraft({ ...draft, name: e.target.value })}
      />
      <div className="field">
        <label htmlFor={`${prefix}-channel`}>Channel</label>
        <select
          id={`${prefix}-channel`}
          value={draft.channel}
          onChange={(e) => setDraft({ ...draft, channel: e.target.value as DisbursementChannel })}
        >
          <option value="MOBILE_MONEY">Mobile money</option>
          <option value="BANK">Bank</option>
        </select>
      </div>
      <Field
        id={`${prefix}-account`}
        label={draft.channel === 'BANK' ? 'Account number' : 'Mobile money number'}
        value={draft.accountNumber}
        inputMode="numeric"
        autoComplete="off"
        invalid={bad.has('accountNumber')}
        onChange={(e) => setDraft({ ...draft, accountNumber: e.target.value })}
      />
      {draft.channel === 'BANK' &&
        TEXT_FIELDS.map(([key, label]) => (
          <Field
            key={key}
            id={`${prefix}-${key}`}
            label={label}
            value={draft[key]}
            invalid={bad.has(key)}
            onChange={(e) => setDraft({ ...draft, [key]: e.target.value })}
          />
        ))}
      <div className="actions">
        <button type="submit" className="primary" disabled={busy}>
          {submitLabel}
        </button>
        {onCancel && (
          <button type="button" onClick={onCancel}>
            Close
          </button>
        )}
      </div>
      <ErrorNote error={error} />
    </form>
  );
}
