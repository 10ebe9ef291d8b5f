import { graphql } from '../gql';

/** The references a file would use that already have payouts: sending them again pays nothing. */
export const KNOWN_PAYOUTS = graphql(`
  query KnownPayouts($referenceIds: [ID!]!) {
    disbursements(referenceIds: $referenceIds) {
      referenceId
      status
      amount
      accountNumber
    }
  }
`);

/** Each row's answer in a batch: its payout, or the error that refused that row alone. */
export const BATCH_ROW_RESULT = graphql(`
  fragment BatchRowResult on DisbursementResult {
    referenceId
    disbursement {
      ...PayoutRow
    }
    error {
      code
      message
      fields
    }
  }
`);

export const PAY_BENEFICIARIES = graphql(`
  mutation PayBeneficiaries($inputs: [BeneficiaryPayoutInput!]!) {
    payBeneficiaries(inputs: $inputs) {
      ...BatchRowResult
    }
  }
`);

export const CREATE_MOBILE_PAYOUTS = graphql(`
  mutation CreateMobilePayouts($inputs: [MobileMoneyDisbursementInput!]!) {
    createMobileMoneyDisbursements(inputs: $inputs) {
      ...BatchRowResult
    }
  }
`);
