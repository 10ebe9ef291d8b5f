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

export const PAY_BENEFICIARIES = graphql(`
  mutation PayBeneficiaries($inputs: [BeneficiaryPayoutInput!]!) {
    payBeneficiaries(inputs: $inputs) {
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
  }
`);

export const CREATE_MOBILE_PAYOUTS = graphql(`
  mutation CreateMobilePayouts($inputs: [MobileMoneyDisbursementInput!]!) {
    createMobileMoneyDisbursements(inputs: $inputs) {
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
  }
`);
