import { graphql } from '../gql';

export const WALLET = graphql(`
  query Wallet {
    walletBalance {
      amount
      currency
      asOf
    }
  }
`);

export const ALLOWANCE = graphql(`
  query Allowance {
    payoutAllowance {
      currency
      maxAmount
      approvalAbove
      dailyRemaining
      userDailyRemaining
    }
  }
`);

export const STATEMENT = graphql(`
  query Statement($from: DateTimeISO!, $to: DateTimeISO!) {
    payoutStatement(from: $from, to: $to) {
      from
      to
      lines {
        currency
        status
        count
        amount
      }
    }
  }
`);

export const RECONCILIATION_FIELDS = graphql(`
  fragment ReconciliationFields on ReconciliationRun {
    id
    state
    from
    to
    checked
    total
    startedAt
    finishedAt
    failure
    discrepancies {
      referenceId
      kind
      gatewayStatus
      providerStatus
      resolved
    }
    balance {
      opening
      closing
      explained
      unexplained
      currency
    }
  }
`);

export const START_RECONCILIATION = graphql(`
  mutation StartReconciliation($from: DateTimeISO!, $to: DateTimeISO!) {
    startReconciliation(from: $from, to: $to) {
      ...ReconciliationFields
    }
  }
`);

export const RECONCILIATION_RUN = graphql(`
  query ReconciliationRun($id: ID!) {
    reconciliationRun(id: $id) {
      ...ReconciliationFields
    }
  }
`);

export const AUDIT_VERIFICATION = graphql(`
  query AuditVerification {
    auditVerification {
      verified
      entries
      brokenAt
      reason
      checkpoint {
        sequence
        at
        keyId
      }
    }
  }
`);
