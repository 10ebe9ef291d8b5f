import { graphql } from '../gql';

export const AUDIT_ROW = graphql(`
  fragment AuditRow on AuditEntry {
    sequence
    action
    actor
    referenceId
    status
    amount
    currency
    detail
    at
    hash
  }
`);

export const AUDIT_TRAIL = graphql(`
  query AuditTrail($first: Int!, $after: String, $filter: AuditFilter) {
    auditTrail(first: $first, after: $after, filter: $filter) {
      pageInfo {
        endCursor
        hasNextPage
      }
      edges {
        cursor
        node {
          ...AuditRow
        }
      }
    }
  }
`);
