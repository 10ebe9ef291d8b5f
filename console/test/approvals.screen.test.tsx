import { act, screen, within } from '@testing-library/react';
import { ApprovalsScreen } from '../src/approvals/approvals.screen';
import { FakeApi, never, refusal, renderWith } from './support/fake-api';
import { change, page, payout } from './support/payouts';

const APPROVER = { sub: 'bob', scope: 'payouts:read payouts:approve' };
const held = (referenceId: string, requestedBy: string) =>
  payout({
    referenceId,
    status: 'AWAITING_APPROVAL',
    amount: '2500',
    approval: {
      __typename: 'DisbursementApproval',
      requestedBy,
      expiresAt: '2026-01-03T10:00:00.000Z',
      decision: null,
      decidedBy: null,
      decidedAt: null,
      reason: null,
    },
  });

describe('the Approvals screen', () => {
  it('says it is loading while the queue is slower than a moment', async () => {
    renderWith(new FakeApi().answer('PayoutList', never).stream('PayoutChanges'), <ApprovalsScreen />, APPROVER);
    expect(await screen.findByText('Loading the approval queue…')).toBeTruthy();
  });

  it('says when nothing waits', async () => {
    const api = new FakeApi().answer('PayoutList', () => page([])).stream('PayoutChanges');
    renderWith(api, <ApprovalsScreen />, APPROVER);
    expect(await screen.findByText('No payout awaits approval.')).toBeTruthy();
  });

  it("shows what is approved, offers Approve and Reject on another's request, never on one's own", async () => {
    const api = new FakeApi()
      .answer('PayoutList', () => page([held('pay-alice', 'alice'), held('pay-bob', 'bob')]))
      .stream('PayoutChanges');
    renderWith(api, <ApprovalsScreen />, APPROVER);
    const alices = await screen.findByRole('listitem', { name: 'Payout pay-alice' });
    expect(alices.textContent).toContain('2,500.00 ZMW');
    expect(alices.textContent).toContain('260971234567');
    expect(alices.textContent).toContain('alice');
    expect(within(alices).getByRole('button', { name: 'Approve pay-alice' })).toBeTruthy();
    expect(within(alices).getByRole('button', { name: 'Reject pay-alice' })).toBeTruthy();
    const own = screen.getByRole('listitem', { name: 'Payout pay-bob' });
    expect(within(own).queryByRole('button', { name: /Approve/ })).toBeNull();
    expect(within(own).getByText('Your own request: another person approves it.')).toBeTruthy();
  });

  it("shows the gateway's refusal of an approval", async () => {
    const api = new FakeApi()
      .answer('PayoutList', () => page([held('pay-1', 'alice')]))
      .answer('ApprovePayout', () => refusal('The payout is no longer awaiting approval', 'INVALID_STATE'))
      .stream('PayoutChanges');
    renderWith(api, <ApprovalsScreen />, APPROVER);
    const card = await screen.findByRole('listitem', { name: 'Payout pay-1' });
    act(() => within(card).getByRole('button', { name: 'Approve pay-1' }).click());
    expect(within(await within(card).findByRole('alert')).getByText('INVALID_STATE')).toBeTruthy();
  });

  it('asks the queue again when a payout is held anywhere', async () => {
    let queue = [held('pay-1', 'alice')];
    const api = new FakeApi().answer('PayoutList', () => page(queue)).stream('PayoutChanges');
    renderWith(api, <ApprovalsScreen />, APPROVER);
    await screen.findByRole('listitem', { name: 'Payout pay-1' });
    queue = [held('pay-2', 'carol'), ...queue];
    act(() => api.push('PayoutChanges', change(held('pay-2', 'carol'))));
    expect(await screen.findByRole('listitem', { name: 'Payout pay-2' })).toBeTruthy();
  });
});
