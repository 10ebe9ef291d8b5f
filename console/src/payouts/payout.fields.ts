import { graphql } from '../gql';

/** What a row of any payout list shows; the live changes carry the same fields, so a change redraws its row. */
export const PAYOUT_ROW = graphql(`
  fragment PayoutRow on Disbursement {
    referenceId
    status
    channel
    paymentType
    amount
    currency
    accountNumber
    narration
    message
    createdAt
    updatedAt
    sendAt
    beneficiaryId
    sendsAgain
    approval {
      requestedBy
      requestedByYou
      expiresAt
      decision
      decidedBy
      decidedAt
      reason
    }
  }
`);
