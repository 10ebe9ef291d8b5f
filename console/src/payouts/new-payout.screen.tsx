import { useMutation, useQuery } from '@apollo/client/react';
import { useState, type FormEvent } from 'react';
import { allows, SCOPES } from '../api/api.session';
import { useLocation } from '../app/app.router';
import { useSession } from '../app/app.session';
import { BENEFICIARY_LIST } from '../beneficiaries/beneficiaries.operations';
import { ALLOWANCE } from '../finance/finance.operations';
import type { PayoutRowFragment } from '../gql/graphql';
import { ErrorNote } from '../shared/error.note';
import { Field } from '../shared/field';
import { formatMoney, maskAccount } from '../shared/money';
import { problemsOf } from '../shared/problem';
import { fromLocalInput } from '../shared/time';
import { PayoutAnswer } from './payout.answer';
import { CREATE_BANK_PAYOUT, CREATE_MOBILE_PAYOUT, PAY_BENEFICIARY } from './payouts.operations';
import { newReference } from './reference';

type Mode = 'MOBILE_MONEY' | 'BANK' | 'BENEFICIARY';

const EMPTY = {
  amount: '',
  currency: 'ZMW',
  accountNumber: '',
  narration: '',
  sendAt: '',
  accountHolderName: '',
  firstName: '',
  lastName: '',
  swiftCode: '',
  phoneNumber: '',
  email: '',
  beneficiaryId: '',
};
type Form = typeof EMPTY;

/** What the payout controls allow today, so the form says it before it is sent. */
function AllowanceNote() {
  const { data } = useQuery(ALLOWANCE);
  const lines = (data?.payoutAllowance ?? []).flatMap((a) =>
    [
      a.maxAmount && `at most ${formatMoney(a.maxAmount, a.currency)} a payout`,
      a.approvalAbove && `above ${formatMoney(a.approvalAbove, a.currency)} waits for approval`,
      a.userDailyRemaining && `${formatMoney(a.userDailyRemaining, a.currency)} left for you today`,
      a.dailyRemaining && `${formatMoney(a.dailyRemaining, a.currency)} left today`,
    ].filter(Boolean),
  );
  return lines.length > 0 ? <p className="muted">Limits: {lines.join('; ')}.</p> : null;
}

/**
 * A new payout to a mobile money number, a bank account or a saved beneficiary, now or at a time.
 * The answer shows at once, then its status live. The reference is kept after an error, so sending
 * again is a retry of the same payout; a new one is made after a success.
 */
export function NewPayoutScreen() {
  const session = useSession();
  const { params } = useLocation();
  // Choosing a saved beneficiary lists them: beneficiaries:read (paying one needs only payouts:write).
  const canPayBeneficiaries = allows(session, SCOPES.beneficiariesRead);
  const preset = canPayBeneficiaries ? (params.get('beneficiary') ?? '') : '';
  const [mode, setMode] = useState<Mode>(preset ? 'BENEFICIARY' : 'MOBILE_MONEY');
  const [form, setForm] = useState<Form>({ ...EMPTY, beneficiaryId: preset });
  const [referenceId, setReferenceId] = useState(() => newReference());
  const [answer, setAnswer] = useState<PayoutRowFragment>();
  const [failure, setFailure] = useState<unknown>();
  const [mobile, mobileState] = useMutation(CREATE_MOBILE_PAYOUT);
  const [bank, bankState] = useMutation(CREATE_BANK_PAYOUT);
  const [pay, payState] = useMutation(PAY_BENEFICIARY);
  const beneficiaries = useQuery(BENEFICIARY_LIST, {
    variables: { first: 100, filter: { status: 'ACTIVE' } },
    skip: mode !== 'BENEFICIARY',
  });
  const sending = mobileState.loading || bankState.loading || payState.loading;
  const badFields = new Set(problemsOf(failure).flatMap((p) => (p.fields ?? []).map((f) => f.replace(/^input\./, ''))));
  const set = (key: keyof Form) => (event: { target: { value: string } }) =>
    setForm((f) => ({ ...f, [key]: event.target.value }));
  const field = (key: keyof Form, label: string, extra: Record<string, unknown> = {}) => (
    <Field
      id={`payout-${key}`}
      label={label}
      value={form[key]}
      onChange={set(key)}
      invalid={badFields.has(key)}
      {...extra}
    />
  );

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setFailure(undefined);
    setAnswer(undefined);
    const common = {
      referenceId,
      amount: form.amount.trim(),
      currency: form.currency.trim().toUpperCase(),
      sendAt: fromLocalInput(form.sendAt),
    };
    const optional = (value: string) => value.trim() || undefined;
    try {
      let payout: PayoutRowFragment | undefined;
      if (mode === 'MOBILE_MONEY') {
        const { data } = await mobile({
          variables: {
            input: { ...common, accountNumber: form.accountNumber.trim(), narration: optional(form.narration) },
          },
        });
        payout = data?.createMobileMoneyDisbursement;
      } else if (mode === 'BANK') {
        const { data } = await bank({
          variables: {
            input: {
              ...common,
              accountNumber: form.accountNumber.trim(),
              narration: form.narration.trim(),
              accountHolderName: form.accountHolderName.trim(),
              firstName: form.firstName.trim(),
              lastName: form.lastName.trim(),
              swiftCode: form.swiftCode.trim(),
              phoneNumber: form.phoneNumber.trim(),
              email: optional(form.email),
            },
          },
        });
        payout = data?.createBankDisbursement;
      } else {
        const { data } = await pay({
          variables: { input: { ...common, beneficiaryId: form.beneficiaryId, narration: optional(form.narration) } },
        });
        payout = data?.payBeneficiary;
      }
      setAnswer(payout);
      setReferenceId(newReference());
    } catch (error) {
      setFailure(error);
    }
  };

  return (
    <>
      <h1>New payout</h1>
      <AllowanceNote />
      <form className="card form" onSubmit={(e) => void submit(e)} noValidate>
        <fieldset className="choice">
          <legend>Pay to</legend>
          {(
            [
              ['MOBILE_MONEY', 'Mobile money'],
              ['BANK', 'Bank account'],
              ...(canPayBeneficiaries ? [['BENEFICIARY', 'Saved beneficiary']] : []),
            ] as [Mode, string][]
          ).map(([value, label]) => (
            <label key={value}>
              <input
                type="radio"
                name="mode"
                value={value}
                checked={mode === value}
                onChange={() => {
                  setMode(value);
                  setFailure(undefined);
                }}
              />
              {label}
            </label>
          ))}
        </fieldset>
        {mode === 'MOBILE_MONEY' &&
          field('accountNumber', 'Mobile money number', {
            inputMode: 'numeric',
            hint: '12 digits starting with 260, e.g. 260971234567',
            autoComplete: 'off',
          })}
        {mode === 'BANK' && (
          <>
            {field('accountNumber', 'Account number', { inputMode: 'numeric', autoComplete: 'off' })}
            {field('accountHolderName', 'Account holder name')}
            {field('firstName', 'First name')}
            {field('lastName', 'Last name')}
            {field('swiftCode', 'SWIFT code', { hint: '8 or 11 characters' })}
            {field('phoneNumber', 'Phone number', {
              inputMode: 'tel',
              hint: 'International digits, e.g. 260971234567',
            })}
            {field('email', 'Email', { type: 'email' })}
          </>
        )}
        {mode === 'BENEFICIARY' && (
          <div className="field">
            <label htmlFor="payout-beneficiaryId">Beneficiary</label>
            <select
              id="payout-beneficiaryId"
              value={form.beneficiaryId}
              onChange={set('beneficiaryId')}
              aria-invalid={badFields.has('beneficiaryId') || undefined}
            >
              <option value="">Choose a beneficiary</option>
              {(beneficiaries.data?.beneficiaries.edges ?? []).map(({ node }) => (
                <option key={node.id} value={node.id}>
                  {node.name} ({maskAccount(node.accountNumber)})
                </option>
              ))}
              {preset && !beneficiaries.data?.beneficiaries.edges.some((e) => e.node.id === preset) && (
                <option value={preset}>{preset}</option>
              )}
            </select>
            <ErrorNote error={beneficiaries.error} />
          </div>
        )}
        {field('amount', 'Amount', { inputMode: 'decimal', hint: 'Up to 2 decimal places' })}
        {field('currency', 'Currency', { maxLength: 3 })}
        <Field
          id="payout-reference"
          label="Reference"
          value={referenceId}
          onChange={(e) => setReferenceId(e.target.value)}
          invalid={badFields.has('referenceId')}
          hint="Your id for this payout: sending again with it never pays twice"
        />
        {field('narration', 'Narration', { hint: mode === 'BANK' ? 'Required for a bank payout' : 'Optional' })}
        {field('sendAt', 'Send time (optional)', {
          type: 'datetime-local',
          hint: 'Later than now: scheduled, cancellable until then',
        })}
        <button type="submit" className="primary" disabled={sending}>
          {sending ? 'Sending…' : 'Send payout'}
        </button>
        <ErrorNote error={failure} />
      </form>
      {answer && <PayoutAnswer key={answer.referenceId} payout={answer} />}
    </>
  );
}
