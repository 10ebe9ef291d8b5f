import { act, fireEvent, screen, within } from '@testing-library/react';
import { NewPayoutScreen } from '../src/payouts/new-payout.screen';
import { FakeApi, never, refusal, renderWith } from './support/fake-api';
import { payout } from './support/payouts';

const PAYER = { sub: 'alice', scope: 'payouts:read payouts:write' };

function fill(label: string, value: string) {
  fireEvent.change(screen.getByLabelText(label), { target: { value } });
}

function allowance() {
  return { data: { payoutAllowance: [] } };
}

describe('the New payout screen', () => {
  it('shows the answer at once, then the status live', async () => {
    const api = new FakeApi()
      .answer('Allowance', allowance)
      .answer('CreateMobilePayout', (v) => {
        const input = v.input as { referenceId: string };
        return {
          data: {
            createMobileMoneyDisbursement: payout({ referenceId: input.referenceId, status: 'AWAITING_APPROVAL' }),
          },
        };
      })
      .stream('PayoutUpdated');
    renderWith(api, <NewPayoutScreen />, PAYER);
    fill('Mobile money number', '260971234567');
    fill('Amount', '2500');
    const reference = screen.getByLabelText<HTMLInputElement>('Reference').value;
    act(() => screen.getByRole('button', { name: 'Send payout' }).click());
    const status = await screen.findByRole('status', { name: 'Payout status' });
    expect(within(status).getByText('AWAITING_APPROVAL')).toBeTruthy();
    expect(screen.getByText(/Held until another person approves it/)).toBeTruthy();
    expect(api.calls.find((c) => c.operationName === 'CreateMobilePayout')?.variables.input).toMatchObject({
      referenceId: reference,
      amount: '2500',
      currency: 'ZMW',
      accountNumber: '260971234567',
    });
    // A new payout gets a new reference: the next send is not a retry of this one.
    expect(screen.getByLabelText<HTMLInputElement>('Reference').value).not.toBe(reference);

    act(() =>
      api.push('PayoutUpdated', {
        disbursementUpdated: {
          ...payout({ referenceId: reference, status: 'SUCCESSFUL' }),
          identifier: null,
          externalId: null,
          providerStatus: null,
          history: [],
        },
      }),
    );
    expect(await within(status).findByText('SUCCESSFUL')).toBeTruthy();
  });

  it("shows the API's error and marks the field it names; the reference is kept for a retry", async () => {
    const api = new FakeApi()
      .answer('Allowance', allowance)
      .answer('CreateMobilePayout', () =>
        refusal('amount must be positive, at most 2 decimal places', 'BAD_USER_INPUT', ['input.amount']),
      );
    renderWith(api, <NewPayoutScreen />, PAYER);
    fill('Mobile money number', '260971234567');
    fill('Amount', '1.234');
    const reference = screen.getByLabelText<HTMLInputElement>('Reference').value;
    act(() => screen.getByRole('button', { name: 'Send payout' }).click());
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain('amount must be positive');
    expect(within(alert).getByText('BAD_USER_INPUT')).toBeTruthy();
    expect(screen.getByLabelText('Amount').getAttribute('aria-invalid')).toBe('true');
    expect(screen.getByLabelText<HTMLInputElement>('Reference').value).toBe(reference);
  });

  it('asks a bank payout for the bank fields under their labels', () => {
    renderWith(new FakeApi().answer('Allowance', never), <NewPayoutScreen />, PAYER);
    act(() => screen.getByLabelText('Bank account').click());
    for (const label of ['Account number', 'Account holder name', 'First name', 'Last name', 'SWIFT code']) {
      expect(screen.getByLabelText(label)).toBeTruthy();
    }
    expect(screen.queryByLabelText('Mobile money number')).toBeNull();
  });

  it('asks for the channel as radios apart from the number, and for an optional send time', () => {
    renderWith(new FakeApi().answer('Allowance', never), <NewPayoutScreen />, PAYER);
    const choice = screen.getByRole('group', { name: 'Pay to' });
    expect(within(choice).getByRole<HTMLInputElement>('radio', { name: 'Mobile money' }).checked).toBe(true);
    expect(screen.getByLabelText('Mobile money number')).toBeTruthy();
    expect(screen.getByLabelText('Send time (optional)').getAttribute('type')).toBe('datetime-local');
  });
});
