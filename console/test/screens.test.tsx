import { act, screen, waitFor, within } from '@testing-library/react';
import { AuditScreen } from '../src/audit/audit.screen';
import { BeneficiariesScreen } from '../src/beneficiaries/beneficiaries.screen';
import { FinanceScreen } from '../src/finance/finance.screen';
import { PayoutScreen } from '../src/payouts/payout.screen';
import { ScheduledScreen } from '../src/scheduled/scheduled.screen';
import { FakeApi, never, refusal, renderWith } from './support/fake-api';
import { change, page, payout } from './support/payouts';

const EVERYTHING = {
  sub: 'dana',
  scope: 'payouts:read payouts:write payouts:approve audit:read beneficiaries:read beneficiaries:write',
};

const detail = (overrides: Parameters<typeof payout>[0] = {}) => ({
  ...payout(overrides),
  identifier: null,
  externalId: null,
  providerStatus: null,
  history: [
    {
      __typename: 'DisbursementEvent',
      status: overrides.status ?? 'PENDING',
      providerStatus: 'Pending',
      message: null,
      source: 'CREATE',
      actor: 'alice',
      at: '2026-01-02T10:00:00.000Z',
      lastAt: null,
      repeated: 1,
    },
  ],
});

describe('the Scheduled screen', () => {
  it('says when nothing waits, and lists a payout scheduled meanwhile with Cancel', async () => {
    let listed: ReturnType<typeof payout>[] = [];
    const api = new FakeApi().answer('PayoutList', () => page(listed)).stream('PayoutChanges');
    renderWith(api, <ScheduledScreen />, EVERYTHING);
    expect(await screen.findByText('No payout is waiting for its time.')).toBeTruthy();
    const scheduled = payout({ referenceId: 'later-1', status: 'SCHEDULED', sendAt: '2026-01-05T09:00:00.000Z' });
    listed = [scheduled];
    act(() => api.push('PayoutChanges', change(scheduled)));
    const row = await screen.findByRole('row', { name: 'Payout later-1' });
    expect(within(row).getByRole('button', { name: 'Cancel' })).toBeTruthy();
  });
});

describe('the sends the gateway will finish', () => {
  it('lists, under Scheduled, a scheduled payout whose send has no known outcome, until it settles', async () => {
    let unknown = [
      payout({ referenceId: 'cut-1', status: 'UNKNOWN', sendAt: '2026-01-05T09:00:00.000Z', sendsAgain: true }),
      payout({ referenceId: 'client-1', status: 'UNKNOWN', sendsAgain: false }),
    ];
    const api = new FakeApi()
      .answer('PayoutList', (variables) => page(JSON.stringify(variables).includes('UNKNOWN') ? unknown : []))
      .stream('PayoutChanges');
    renderWith(api, <ScheduledScreen />, EVERYTHING);
    const section = await screen.findByRole('region', { name: 'Due, to be sent again' });
    expect(within(section).getByRole('row', { name: /cut-1/ })).toBeTruthy();
    expect(within(section).queryByRole('row', { name: /client-1/ })).toBeNull();
    const settled = payout({ referenceId: 'cut-1', status: 'PENDING', sendAt: '2026-01-05T09:00:00.000Z' });
    unknown = [];
    act(() => api.push('PayoutChanges', change(settled)));
    await waitFor(() => expect(screen.queryByRole('region', { name: 'Due, to be sent again' })).toBeNull());
  });
});

describe("a payout's page", () => {
  it('says it is loading, then shows the status live and the timeline', async () => {
    const api = new FakeApi()
      .answer('Payout', () => ({ data: { disbursement: detail() } }))
      .answer('PayoutAudit', () => ({
        data: {
          auditTrail: {
            __typename: 'AuditConnection',
            pageInfo: { __typename: 'AuditPageInfo', hasNextPage: false },
            edges: [
              {
                __typename: 'AuditEdge',
                node: {
                  __typename: 'AuditEntry',
                  sequence: 7,
                  action: 'CREATE_REQUESTED',
                  actor: 'alice',
                  referenceId: 'pay-1',
                  status: 'UNKNOWN',
                  amount: '150.75',
                  currency: 'ZMW',
                  detail: null,
                  at: '2026-01-02T09:59:59.000Z',
                  hash: 'ab'.repeat(32),
                },
              },
            ],
          },
        },
      }))
      .stream('PayoutUpdated');
    renderWith(api, <PayoutScreen referenceId="pay-1" />, EVERYTHING);
    const timeline = await screen.findByRole('list', { name: 'Timeline' });
    expect(within(timeline).getByText('PENDING')).toBeTruthy();
    expect(await within(timeline).findByText('Audit: CREATE_REQUESTED')).toBeTruthy();
    act(() => api.push('PayoutUpdated', { disbursementUpdated: detail({ status: 'SUCCESSFUL' }) }));
    expect(await within(screen.getByRole('status', { name: 'Status' })).findByText('SUCCESSFUL')).toBeTruthy();
  });

  it('names the channel as the list does, and the payment type apart', async () => {
    const api = new FakeApi()
      .answer('Payout', () => ({ data: { disbursement: detail() } }))
      .answer('PayoutAudit', never)
      .stream('PayoutUpdated');
    renderWith(api, <PayoutScreen referenceId="pay-1" />, EVERYTHING);
    await screen.findByRole('heading', { name: 'Payout pay-1' });
    const details = screen.getAllByRole('term').map((term) => [term.textContent, term.nextElementSibling?.textContent]);
    expect(details).toContainEqual(['Channel', 'Mobile money']);
    expect(details).toContainEqual(['Payment type', 'OPERATOR_A_MONEY']);
  });

  it('says so when no payout has the reference', async () => {
    const api = new FakeApi()
      .answer('Payout', () => ({ data: { disbursement: null } }))
      .answer('PayoutAudit', never)
      .stream('PayoutUpdated');
    renderWith(api, <PayoutScreen referenceId="nope" />, EVERYTHING);
    expect(await screen.findByText('No payout has this reference.')).toBeTruthy();
  });
});

describe('the Beneficiaries screen', () => {
  it('says when none matches', async () => {
    const api = new FakeApi().answer('BeneficiaryList', () => ({
      data: {
        beneficiaries: {
          __typename: 'BeneficiaryConnection',
          totalCount: 0,
          pageInfo: { __typename: 'PageInfo', endCursor: null, hasNextPage: false },
          edges: [],
        },
      },
    }));
    renderWith(api, <BeneficiariesScreen />, EVERYTHING);
    expect(await screen.findByText('No beneficiary matches.')).toBeTruthy();
  });

  it("shows the gateway's refusal with its code", async () => {
    const api = new FakeApi().answer('BeneficiaryList', () =>
      refusal('This token lacks the scope beneficiaries:read or beneficiaries:write', 'FORBIDDEN'),
    );
    renderWith(api, <BeneficiariesScreen />, EVERYTHING);
    expect(within(await screen.findByRole('alert')).getByText('FORBIDDEN')).toBeTruthy();
  });
});

describe('the Finance screen', () => {
  it('says what is loading, then the balance as money; an error stays in its own panel', async () => {
    const api = new FakeApi()
      .answer('Wallet', () => ({
        data: {
          walletBalance: {
            __typename: 'WalletBalance',
            amount: '1000000.5',
            currency: 'ZMW',
            asOf: '2026-01-02T10:00:00Z',
          },
        },
      }))
      .answer('Allowance', never)
      .answer('AuditVerification', () => refusal('The audit trail could not be read', 'SERVICE_UNAVAILABLE'));
    renderWith(api, <FinanceScreen />, EVERYTHING);
    expect(await screen.findByText('Loading the allowance…')).toBeTruthy();
    expect(await screen.findByText('1,000,000.50 ZMW')).toBeTruthy();
    const check = screen.getByRole('region', { name: 'Audit trail' });
    expect(within(await within(check).findByRole('alert')).getByText('SERVICE_UNAVAILABLE')).toBeTruthy();
  });
});

describe('the Audit screen', () => {
  it('says when no entry matches the filter', async () => {
    const api = new FakeApi().answer('AuditTrail', () => ({
      data: {
        auditTrail: {
          __typename: 'AuditConnection',
          pageInfo: { __typename: 'AuditPageInfo', endCursor: null, hasNextPage: false },
          edges: [],
        },
      },
    }));
    renderWith(api, <AuditScreen />, EVERYTHING);
    expect(await screen.findByText('No audit entry matches.')).toBeTruthy();
  });
});
