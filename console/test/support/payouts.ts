import type { PayoutRowFragment } from '../../src/gql/graphql';

/** A payout as the API answers it in lists, with whatever the test changes. */
export function payout(overrides: Partial<PayoutRowFragment> = {}): PayoutRowFragment {
  return {
    __typename: 'Disbursement',
    referenceId: 'pay-1',
    status: 'PENDING',
    channel: 'MOBILE_MONEY',
    paymentType: 'OPERATOR_A_MONEY',
    amount: '150.75',
    currency: 'ZMW',
    accountNumber: '260971234567',
    narration: null,
    message: null,
    createdAt: '2026-01-02T10:00:00.000Z',
    updatedAt: '2026-01-02T10:00:00.000Z',
    sendAt: null,
    beneficiaryId: null,
    sendsAgain: false,
    approval: null,
    ...overrides,
  };
}

export function page(payouts: PayoutRowFragment[], hasNextPage = false) {
  return {
    data: {
      disbursementHistory: {
        __typename: 'DisbursementConnection',
        totalCount: payouts.length,
        pageInfo: { __typename: 'PageInfo', endCursor: hasNextPage ? 'c1' : null, hasNextPage },
        edges: payouts.map((node, i) => ({ __typename: 'DisbursementEdge', cursor: `c${i}`, node })),
      },
    },
  };
}

export function change(node: PayoutRowFragment, cursor = 'e1') {
  return { disbursementEvents: { __typename: 'DisbursementChange', cursor, disbursement: node } };
}
