import { graphql } from '../gql';

export const BENEFICIARY_ROW = graphql(`
  fragment BeneficiaryRow on Beneficiary {
    id
    name
    channel
    accountNumber
    accountHolderName
    firstName
    lastName
    swiftCode
    phoneNumber
    email
    status
    createdBy
    createdAt
    changedAt
    approvedBy
    payableFrom
    detailsFingerprint
    requestedByYou
  }
`);

export const BENEFICIARY_LIST = graphql(`
  query BeneficiaryList($first: Int!, $after: String, $filter: BeneficiaryFilter) {
    beneficiaries(first: $first, after: $after, filter: $filter) {
      totalCount
      pageInfo {
        endCursor
        hasNextPage
      }
      edges {
        cursor
        node {
          ...BeneficiaryRow
        }
      }
    }
  }
`);

/** One beneficiary with its account number in full: for changing its details, and for checking a batch row. */
export const BENEFICIARY = graphql(`
  query Beneficiary($id: ID!) {
    beneficiary(id: $id) {
      ...BeneficiaryRow
    }
  }
`);

export const CREATE_BENEFICIARY = graphql(`
  mutation CreateBeneficiary($input: BeneficiaryInput!) {
    createBeneficiary(input: $input) {
      ...BeneficiaryRow
    }
  }
`);

export const UPDATE_BENEFICIARY = graphql(`
  mutation UpdateBeneficiary($id: ID!, $input: BeneficiaryInput!) {
    updateBeneficiary(id: $id, input: $input) {
      ...BeneficiaryRow
    }
  }
`);

export const ARCHIVE_BENEFICIARY = graphql(`
  mutation ArchiveBeneficiary($id: ID!) {
    archiveBeneficiary(id: $id) {
      ...BeneficiaryRow
      cancelledPayouts
    }
  }
`);

export const APPROVE_BENEFICIARY = graphql(`
  mutation ApproveBeneficiary($id: ID!, $expectedDetails: String!) {
    approveBeneficiary(id: $id, expectedDetails: $expectedDetails) {
      ...BeneficiaryRow
    }
  }
`);
