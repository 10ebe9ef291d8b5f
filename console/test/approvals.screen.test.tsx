import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { ApprovalsScreen } from '../src/approvals/approvals.screen';
import type { BeneficiaryRowFragment } from '../src/gql/graphql';
import { FakeApi, never, refusal, renderWith } from './support/fake-api';
import { change, page, payout } from './support/payouts';

const APPROVER = { sub: 'bob', scope: 'payouts:read payouts:approve' };
const BOOK_APPROVER = { sub: 'bob', scope: 'payouts:read payouts:approve beneficiaries:read' };
/** A payout held for approval; `requestedByYou` is the gateway's word on whether the viewer asked for it. */
const held = (referenceId: string, requestedBy: string, requestedByYou = false) =>
  payout({
    referenceId,
    status: 'AWAITING_APPROVAL',
    amount: '2500',
    approval: {
      __typename: 'DisbursementApproval',
      requestedBy,
      requestedByYou,
      expiresAt: '2026-01-03T10:00:00.000Z',
      decision: null,
      decidedBy: null,
      decidedAt: null,
      reason: null,
    },
  });

/** A beneficiary awaiting approval, its account number as the API gives it (in full by id, masked in lists). */
const pending = (overrides: Partial<BeneficiaryRowFragment> = {}): BeneficiaryRowFragment => ({
  __typename: 'Beneficiary',
  id: 'ben_1',
  name: 'Mwila Banda',
  channel: 'MOBILE_MONEY',
  accountNumber: '****4567',
  accountHolderName: null,
  firstName: null,
  lastName: null,
  swiftCode: null,
  phoneNumber: null,
  email: null,
  status: 'AWAITING_APPROVAL',
  createdBy: 'alice',
  createdAt: '2026-01-02T09:00:00.000Z',
  changedAt: '2026-01-02T09:00:00.000Z',
  approvedBy: null,
  payableFrom: '2026-01-03T09:00:00.000Z',
  detailsFingerprint: 'fp-1',
  requestedByYou: false,
  ...overrides,
});
const book = (nodes: BeneficiaryRowFragment[]) => ({
  data: {
    beneficiaries: {
      __typename: 'BeneficiaryConnection',
      totalCount: nodes.length,
      pageInfo: { __typename: 'PageInfo', endCursor: null, hasNextPage: false },
      edges: nodes.map((node, i) => ({ __typename: 'BeneficiaryEdge', cursor: `b${i}`, node })),
    },
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
      .answer('PayoutList', () => page([held('pay-alice', 'alice'), held('pay-bob', 'bob', true)]))
      .stream('PayoutChanges');
    renderWith(api, <ApprovalsScreen />, APPROVER);
    const alices = await screen.findByRole('listitem', { name: 'Payout pay-alice' });
    expect(alices.textContent).toContain('2,500.00 ZMW');
    expect(alices.textContent).toContain('260971234567');
    expect(alices.textContent).toContain('alice');
    expect(within(alices).getByRole('button', { name: 'Approve' })).toBeTruthy();
    expect(within(alices).getByRole('button', { name: 'Reject' })).toBeTruthy();
    const own = screen.getByRole('listitem', { name: 'Payout pay-bob' });
    expect(within(own).queryByRole('button', { name: 'Approve' })).toBeNull();
    expect(within(own).getByText('Your own request: another person approves it.')).toBeTruthy();
  });

  it("offers Approve by the gateway's requestedByYou, not by names: open access, where there is no sub", async () => {
    const api = new FakeApi()
      .answer('PayoutList', () => page([held('pay-mine', 'anonymous', true), held('pay-named', 'alice')]))
      .stream('PayoutChanges');
    renderWith(api, <ApprovalsScreen />);
    const mine = await screen.findByRole('listitem', { name: 'Payout pay-mine' });
    expect(within(mine).queryByRole('button', { name: 'Approve' })).toBeNull();
    expect(within(mine).getByText('Your own request: another person approves it.')).toBeTruthy();
    const named = screen.getByRole('listitem', { name: 'Payout pay-named' });
    expect(within(named).getByRole('button', { name: 'Approve' })).toBeTruthy();
  });

  it('Reject asks for a reason in its place, with one Reject button at a time, and Back', async () => {
    const api = new FakeApi()
      .answer('PayoutList', () => page([held('pay-1', 'alice')]))
      .answer('RejectPayout', () => ({ data: { rejectDisbursement: payout({ status: 'CANCELLED' }) } }))
      .stream('PayoutChanges');
    renderWith(api, <ApprovalsScreen />, APPROVER);
    const card = await screen.findByRole('listitem', { name: 'Payout pay-1' });
    act(() => within(card).getByRole('button', { name: 'Reject' }).click());
    const reason = within(card).getByLabelText('Reason');
    expect(document.activeElement).toBe(reason);
    expect(within(card).getAllByRole('button', { name: 'Reject' })).toHaveLength(1);
    expect(within(card).queryByRole('button', { name: 'Approve' })).toBeNull();

    act(() => within(card).getByRole('button', { name: 'Back' }).click());
    expect(within(card).queryByLabelText('Reason')).toBeNull();
    expect(document.activeElement).toBe(within(card).getByRole('button', { name: 'Reject' }));
    expect(within(card).getByRole('button', { name: 'Approve' })).toBeTruthy();

    act(() => within(card).getByRole('button', { name: 'Reject' }).click());
    fireEvent.change(within(card).getByLabelText('Reason'), { target: { value: ' Duplicate invoice ' } });
    act(() => within(card).getByRole('button', { name: 'Reject' }).click());
    await waitFor(() => expect(api.count('RejectPayout')).toBe(1));
    expect(api.calls.find((call) => call.operationName === 'RejectPayout')?.variables).toEqual({
      referenceId: 'pay-1',
      reason: 'Duplicate invoice',
    });
  });

  it("shows the gateway's refusal of an approval", async () => {
    const api = new FakeApi()
      .answer('PayoutList', () => page([held('pay-1', 'alice')]))
      .answer('ApprovePayout', () => refusal('The payout is no longer awaiting approval', 'INVALID_STATE'))
      .stream('PayoutChanges');
    renderWith(api, <ApprovalsScreen />, APPROVER);
    const card = await screen.findByRole('listitem', { name: 'Payout pay-1' });
    act(() => within(card).getByRole('button', { name: 'Approve' }).click());
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

  it("does not offer Approve on a beneficiary change the gateway says is the viewer's own", async () => {
    const api = new FakeApi()
      .answer('PayoutList', () => page([]))
      .answer('BeneficiaryList', () => book([pending({ requestedByYou: true })]))
      .answer('Beneficiary', () => ({
        data: { beneficiary: pending({ accountNumber: '260971234567', requestedByYou: true }) },
      }))
      .stream('PayoutChanges');
    renderWith(api, <ApprovalsScreen />, BOOK_APPROVER);
    const card = await screen.findByRole('listitem', { name: 'Beneficiary Mwila Banda' });
    expect(within(card).queryByRole('button', { name: 'Approve' })).toBeNull();
    expect(within(card).getByText('You made this change: another person approves it.')).toBeTruthy();
  });

  it("keeps showing a beneficiary's full account number after the queue, masked, is asked again", async () => {
    const mwila = pending();
    const chanda = pending({
      id: 'ben_2',
      name: 'Chanda Phiri',
      accountNumber: '****9876',
      detailsFingerprint: 'fp-2',
    });
    const full: Record<string, string> = { ben_1: '260971234567', ben_2: '260979999876' };
    let queue = [mwila];
    const api = new FakeApi()
      .answer('PayoutList', () => page([]))
      .answer('BeneficiaryList', () => book(queue))
      .answer('Beneficiary', ({ id }) => {
        const listed = queue.find((b) => b.id === id);
        return { data: { beneficiary: listed && { ...listed, accountNumber: full[listed.id] } } };
      })
      .stream('PayoutChanges');
    renderWith(api, <ApprovalsScreen />, BOOK_APPROVER);
    const card = await screen.findByRole('listitem', { name: 'Beneficiary Mwila Banda' });
    expect(within(card).getByText('260971234567')).toBeTruthy();
    // What its 10 s poll does: the list asked again, every beneficiary in it masked; once the new one
    // shows, the answer has reached every card.
    queue = [mwila, chanda];
    await act(() => api.client.refetchQueries({ include: ['BeneficiaryList'] }));
    await screen.findByRole('listitem', { name: 'Beneficiary Chanda Phiri' });
    const after = screen.getByRole('listitem', { name: 'Beneficiary Mwila Banda' });
    expect(within(after).getByText('260971234567')).toBeTruthy();
    expect(within(after).queryByText('****4567')).toBeNull();
    expect(within(after).getByRole('button', { name: 'Approve' })).toBeTruthy();
  });
});
