import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { FinanceScreen } from '../src/finance/finance.screen';
import { dayWindow, toDateInput } from '../src/shared/time';
import { FakeApi, never, renderWith } from './support/fake-api';

const AUDITOR = { sub: 'dana', scope: 'payouts:read audit:read' };

function run(variables: Record<string, unknown>, state: 'RUNNING' | 'DONE') {
  return {
    __typename: 'ReconciliationRun',
    id: 'run-1',
    state,
    from: variables.from,
    to: variables.to,
    checked: state === 'DONE' ? 3 : 0,
    total: 3,
    startedAt: '2026-01-02T10:00:00.000Z',
    finishedAt: null,
    failure: null,
    discrepancies: [],
    balance: null,
  };
}

describe('the Finance screen', () => {
  it('starts a reconciliation of today at once, or of the days chosen in its own fields', async () => {
    const api = new FakeApi()
      .answer('Wallet', never)
      .answer('Allowance', never)
      .answer('AuditVerification', never)
      .answer('StartReconciliation', (v) => ({ data: { startReconciliation: run(v, 'RUNNING') } }))
      .answer('ReconciliationRun', () => ({ data: { reconciliationRun: run({}, 'DONE') } }));
    renderWith(api, <FinanceScreen />, AUDITOR);
    const panel = screen.getByRole('region', { name: 'Reconciliation' });
    const today = toDateInput(new Date());
    expect(within(panel).getByLabelText<HTMLInputElement>('From').value).toBe(today);
    expect(within(panel).getByLabelText<HTMLInputElement>('To').value).toBe(today);
    // No statement asked for: the reconciliation does not wait for one.
    act(() => within(panel).getByRole('button', { name: 'Start reconciliation' }).click());
    expect(await within(panel).findByText(/Run DONE: 3 of 3 payouts checked/)).toBeTruthy();
    expect(within(panel).getByText('No discrepancy.')).toBeTruthy();
    expect(api.calls.find((c) => c.operationName === 'StartReconciliation')?.variables).toEqual(
      dayWindow(today, today),
    );

    fireEvent.change(within(panel).getByLabelText('From'), { target: { value: '2026-01-01' } });
    fireEvent.change(within(panel).getByLabelText('To'), { target: { value: '2026-01-02' } });
    act(() => within(panel).getByRole('button', { name: 'Start reconciliation' }).click());
    await waitFor(() => expect(api.count('StartReconciliation')).toBe(2));
    expect(api.calls.filter((c) => c.operationName === 'StartReconciliation')[1]?.variables).toEqual(
      dayWindow('2026-01-01', '2026-01-02'),
    );
    expect(api.count('Statement')).toBe(0);
  });
});
