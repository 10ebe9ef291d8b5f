import { act, fireEvent, screen, within } from '@testing-library/react';
import { checkRows } from '../src/batches/batch.rows';
import { BatchesScreen } from '../src/batches/batches.screen';
import { FakeApi, renderWith } from './support/fake-api';
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
});
