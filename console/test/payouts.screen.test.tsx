import { act, screen, waitFor, within } from '@testing-library/react';
import { PayoutsScreen } from '../src/payouts/payouts.screen';
import { FakeApi, never, refusal, renderWith } from './support/fake-api';
import { change, page, payout } from './support/payouts';

const READER = { sub: 'carol', scope: 'payouts:read' };

describe('the Payouts screen', () => {
  it('says it is loading while the list is slower than a moment', async () => {
    const api = new FakeApi().answer('PayoutList', never).stream('PayoutChanges');
    renderWith(api, <PayoutsScreen />, READER);
    expect(await screen.findByText('Loading payouts…')).toBeTruthy();
  });

  it('says when no payout matches', async () => {
    const api = new FakeApi().answer('PayoutList', () => page([])).stream('PayoutChanges');
    renderWith(api, <PayoutsScreen />, READER);
    expect(await screen.findByText('No payouts match these filters.')).toBeTruthy();
  });

  it("shows the gateway's error with its code, never a stack", async () => {
    const api = new FakeApi()
      .answer('PayoutList', () => refusal('This token lacks the scope payouts:read', 'FORBIDDEN'))
      .stream('PayoutChanges');
    renderWith(api, <PayoutsScreen />, READER);
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain('This token lacks the scope payouts:read');
    expect(within(alert).getByText('FORBIDDEN')).toBeTruthy();
    expect(alert.textContent).not.toMatch(/at \w+ \(/);
  });

  it('lists payouts newest first with masked accounts, and follows them live', async () => {
    let listed = [payout({ referenceId: 'pay-1' })];
    const api = new FakeApi().answer('PayoutList', () => page(listed)).stream('PayoutChanges');
    renderWith(api, <PayoutsScreen />, READER);
    const row = await screen.findByRole('row', { name: /pay-1/ });
    expect(row.textContent).toContain('****4567');
    expect(row.textContent).toContain('150.75 ZMW');
    expect(within(row).getByText('PENDING')).toBeTruthy();

    // A status change rewrites the row through the cache, without a reload.
    act(() => api.push('PayoutChanges', change(payout({ referenceId: 'pay-1', status: 'SUCCESSFUL' }))));
    expect(await within(row).findByText('SUCCESSFUL')).toBeTruthy();
    expect(api.count('PayoutList')).toBe(1);

    // A new payout reloads the first page, where it appears at the top.
    const fresh = payout({ referenceId: 'pay-2', amount: '20' });
    listed = [fresh, ...listed];
    act(() => api.push('PayoutChanges', change(fresh, 'e2')));
    expect(await screen.findByRole('row', { name: /pay-2/ })).toBeTruthy();
  });

  it('reads the list again and follows from now when the changes it missed are no longer kept', async () => {
    const api = new FakeApi().answer('PayoutList', () => page([payout()])).stream('PayoutChanges');
    renderWith(api, <PayoutsScreen />, READER);
    await screen.findByRole('row', { name: /pay-1/ });
    expect(api.open('PayoutChanges')).toBe(1);
    act(() => api.fail('PayoutChanges', 'The changes after that cursor are no longer kept', 'CURSOR_EXPIRED'));
    await waitFor(() => expect(api.count('PayoutList')).toBe(2));
    await waitFor(() => expect(api.open('PayoutChanges')).toBe(1));
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it('sends the chosen filters to the API and pages on', async () => {
    const api = new FakeApi().answer('PayoutList', () => page([payout()], true)).stream('PayoutChanges');
    renderWith(api, <PayoutsScreen />, READER);
    await screen.findByRole('row', { name: /pay-1/ });
    act(() => screen.getByRole('button', { name: 'Next page' }).click());
    await screen.findByRole('button', { name: 'Previous page' });
    expect(api.calls.filter((c) => c.operationName === 'PayoutList').map((c) => c.variables.after)).toEqual([
      null,
      'c1',
    ]);
  });
});
