import { act, fireEvent, screen, within } from '@testing-library/react';
import { checkRows } from '../src/batches/batch.rows';
import { BatchesScreen } from '../src/batches/batches.screen';
import { FakeApi, refusal, renderWith } from './support/fake-api';
import { payout } from './support/payouts';

const FILE = [
  'recipient,amount,reference',
  '260971234567,10.50,run-1',
  '12345,10,run-2',
  '260971234567,1.234,run-3',
  '260971234567,5,run-1',
].join('\n');

describe('a batch file', () => {
  it('is checked row by row in the browser', () => {
    const { rows } = checkRows(FILE);
    expect(rows.map((row) => [row.line, row.problems])).toEqual([
      [2, []],
      [3, ['recipient is neither a beneficiary id (ben_…) nor a mobile money number (260 and 9 digits)']],
      [4, ['amount must be positive, with at most 2 decimals']],
      [5, ['reference repeats line 2']],
    ]);
    expect(checkRows('').problem).toBe('The file has no payouts.');
  });

  it('keeps a first row whose amount is bad when the file has no header, and skips a header by its column names', () => {
    const bare = checkRows('260971234567,ten,run-1\n260971234567,5,run-2');
    expect(bare.rows.map((row) => [row.line, row.reference, row.problems])).toEqual([
      [1, 'run-1', ['amount must be positive, with at most 2 decimals']],
      [2, 'run-2', []],
    ]);
    const named = checkRows(' Recipient , AMOUNT ,reference,currency,\n260971234567,5,run-1');
    expect(named.rows.map((row) => [row.line, row.reference])).toEqual([[2, 'run-1']]);
  });

  it('is reviewed before anything is sent, then each row shows its answer', async () => {
    const api = new FakeApi()
      .answer('KnownPayouts', () => ({ data: { disbursements: [null] } }))
      .answer('CreateMobilePayouts', (v) => ({
        data: {
          createMobileMoneyDisbursements: (v.inputs as { referenceId: string }[]).map((input) => ({
            __typename: 'DisbursementResult',
            referenceId: input.referenceId,
            disbursement: payout({ referenceId: input.referenceId }),
            error: null,
          })),
        },
      }));
    renderWith(api, <BatchesScreen />, { sub: 'alice', scope: 'payouts:read payouts:write' });
    // jsdom's File has no text(); a browser's has.
    const file = Object.assign(new File([FILE], 'payroll.csv', { type: 'text/csv' }), { text: async () => FILE });
    fireEvent.change(screen.getByLabelText('CSV file'), { target: { files: [file] } });
    const review = await screen.findByRole('region', { name: 'Review' });
    expect(within(review).getByText('1 of 4 rows ready to send; 3 with problems will not be sent')).toBeTruthy();
    expect(api.count('CreateMobilePayouts')).toBe(0);
    act(() => screen.getByRole('button', { name: 'Send 1 payouts' }).click());
    expect(await within(review).findByText(/Sent: 1 payouts recorded, 0 refused/)).toBeTruthy();
    expect(api.calls.find((c) => c.operationName === 'CreateMobilePayouts')?.variables.inputs).toEqual([
      { accountNumber: '260971234567', amount: '10.50', currency: 'ZMW', referenceId: 'run-1' },
    ]);
  });

  const result = (referenceId: string, error?: { code: string; message: string; fields: string[] | null }) => ({
    __typename: 'DisbursementResult',
    referenceId,
    disbursement: error ? null : payout({ referenceId }),
    error: error ? { __typename: 'DisbursementError', ...error } : null,
  });
  const choose = (text: string) => {
    const input = screen.getByLabelText<HTMLInputElement>('CSV file');
    const file = Object.assign(new File([text], 'payroll.csv', { type: 'text/csv' }), { text: async () => text });
    fireEvent.change(input, { target: { files: [file] } });
    return input;
  };

  it("shows one batch's answers when the other is refused, each error with its code and the field it names", async () => {
    const api = new FakeApi()
      .answer('KnownPayouts', () => ({ data: { disbursements: [null, null, null] } }))
      .answer('Beneficiary', () => ({
        data: {
          beneficiary: {
            __typename: 'Beneficiary',
            id: 'ben_1',
            name: 'Mwila Banda',
            channel: 'MOBILE_MONEY',
            accountNumber: '260971234567',
            status: 'ACTIVE',
          },
        },
      }))
      .answer('PayBeneficiaries', () => refusal('Too many requests: retry in 30 s', 'RATE_LIMITED'))
      .answer('CreateMobilePayouts', () => ({
        data: {
          createMobileMoneyDisbursements: [
            result('run-1'),
            result('run-2', {
              code: 'LIMIT_EXCEEDED',
              message: 'above the largest payout allowed',
              fields: ['inputs.1.amount'],
            }),
          ],
        },
      }));
    renderWith(api, <BatchesScreen />, { sub: 'alice', scope: 'payouts:write beneficiaries:read' });
    const input = choose('260971234567,10,run-1\n260971234568,900000,run-2\nben_1,5,run-3\n');
    const review = await screen.findByRole('region', { name: 'Review' });
    // Emptied after reading: choosing the same file again reads it again.
    expect(input.value).toBe('');
    expect(within(review).getByRole('row', { name: /run-3/ }).textContent).toContain('Mwila Banda (ben_1)');
    act(() => screen.getByRole('button', { name: 'Send 3 payouts' }).click());
    expect(
      await within(review).findByText(
        '3 of 3 rows ready to send. Sent: 1 payouts recorded, 1 refused, 1 without an answer.',
      ),
    ).toBeTruthy();
    expect(within(within(review).getByRole('row', { name: /run-1/ })).getByText('PENDING')).toBeTruthy();
    const refused = within(review).getByRole('row', { name: /run-2/ });
    expect(within(refused).getByText(/above the largest payout allowed/)).toBeTruthy();
    expect(within(refused).getByText('LIMIT_EXCEEDED')).toBeTruthy();
    expect(within(refused).getByText('(fields: amount)')).toBeTruthy();
    const alert = within(review).getByRole('alert');
    expect(within(alert).getByText(/Payouts to beneficiaries \(1\): no answers/)).toBeTruthy();
    expect(within(alert).getByText(/Too many requests/)).toBeTruthy();
    expect(within(alert).getByText('RATE_LIMITED')).toBeTruthy();
  });

  it("passes a beneficiary row the token cannot read, with a note, and shows a refused read's code", async () => {
    const api = new FakeApi().answer('KnownPayouts', () => ({ data: { disbursements: [null] } }));
    renderWith(api, <BatchesScreen />, { sub: 'alice', scope: 'payouts:write' });
    choose('ben_1,5,run-1\n');
    const review = await screen.findByRole('region', { name: 'Review' });
    expect(within(review).getByText('1 of 1 rows ready to send')).toBeTruthy();
    expect(
      within(review).getByText(
        'OK; beneficiary not checked (that needs beneficiaries:read): the API checks it when sent',
      ),
    ).toBeTruthy();
    expect(api.count('Beneficiary')).toBe(0);
  });

  it("blocks a row whose beneficiary the gateway would not read, with the gateway's code", async () => {
    const api = new FakeApi()
      .answer('KnownPayouts', () => ({ data: { disbursements: [null] } }))
      .answer('Beneficiary', () => refusal('Too many requests: retry in 30 s', 'RATE_LIMITED'));
    renderWith(api, <BatchesScreen />, { sub: 'alice', scope: 'payouts:write beneficiaries:read' });
    choose('ben_1,5,run-1\n');
    const review = await screen.findByRole('region', { name: 'Review' });
    const row = within(review).getByRole('row', { name: /run-1/ });
    expect(within(row).getByText(/Not sent: its beneficiary could not be read: Too many requests/)).toBeTruthy();
    expect(within(row).getByText('RATE_LIMITED')).toBeTruthy();
    expect(within(review).getByText('0 of 1 rows ready to send; 1 with problems will not be sent')).toBeTruthy();
  });
});
