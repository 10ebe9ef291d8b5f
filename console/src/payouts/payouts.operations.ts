import { graphql } from '../gql';

export const PAYOUT_LIST = graphql(`
  query PayoutList($first: Int!, $after: String, $filter: DisbursementFilter) {
    disbursementHistory(first: $first, after: $after, filter: $filter) {
      totalCount
      pageInfo {
        endCursor
        hasNextPage
      }
      edges {
        cursor
        node {
          ...PayoutRow
        }
      }
    }
  }
`);

/** Every change of any payout; `after` is moved on by the socket link as changes arrive (api/api.ws-link.ts). */
export const PAYOUT_CHANGES = graphql(`
  subscription PayoutChanges($after: String) {
    disbursementEvents(after: $after) {
      cursor
      disbursement {
        ...PayoutRow
      }
    }
  }
`);

export const PAYOUT = graphql(`
  query Payout($referenceId: ID!) {
    disbursement(referenceId: $referenceId) {
      ...PayoutRow
      ...PayoutDetail
    }
  }
`);

export const PAYOUT_DETAIL = graphql(`
  fragment PayoutDetail on Disbursement {
    identifier
    externalId
    providerStatus
    history {
      status
      providerStatus
      message
      source
      actor
      at
      lastAt
      repeated
    }
  }
`);

/** One payout live: its current state first, then every change until a final status. */
export const PAYOUT_UPDATED = graphql(`
  subscription PayoutUpdated($referenceId: ID!) {
    disbursementUpdated(referenceId: $referenceId) {
      ...PayoutRow
      ...PayoutDetail
    }
  }
`);

/** The first 40 audit entries of a payout (the gateway's query cost limit allows about that many at once); the Audit screen pages the rest. */
export const PAYOUT_AUDIT = graphql(`
  query PayoutAudit($referenceId: String!) {
    auditTrail(first: 40, filter: { referenceId: $referenceId }) {
      pageInfo {
        hasNextPage
      }
      edges {
        node {
          ...AuditRow
        }
      }
    }
  }
`);

export const APPROVE_PAYOUT = graphql(`
  mutation ApprovePayout($referenceId: ID!) {
    approveDisbursement(referenceId: $referenceId) {
      ...PayoutRow
    }
  }
`);

export const REJECT_PAYOUT = graphql(`
  mutation RejectPayout($referenceId: ID!, $reason: String) {
    rejectDisbursement(referenceId: $referenceId, reason: $reason) {
      ...PayoutRow
    }
  }
`);

export const CANCEL_PAYOUT = graphql(`
  mutation CancelPayout($referenceId: ID!) {
    cancelDisbursement(referenceId: $referenceId) {
      ...PayoutRow
    }
  }
`);

export const CREATE_MOBILE_PAYOUT = graphql(`
  mutation CreateMobilePayout($input: MobileMoneyDisbursementInput!) {
    createMobileMoneyDisbursement(input: $input) {
      ...PayoutRow
    }
  }
`);

export const CREATE_BANK_PAYOUT = graphql(`
  mutation CreateBankPayout($input: BankDisbursementInput!) {
    createBankDisbursement(input: $input) {
      ...PayoutRow
    }
  }
`);

export const PAY_BENEFICIARY = graphql(`
  mutation PayBeneficiary($input: BeneficiaryPayoutInput!) {
    payBeneficiary(input: $input) {
      ...PayoutRow
    }
  }
`);
