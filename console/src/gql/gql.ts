/* eslint-disable */
import * as types from './graphql';
import type { TypedDocumentNode as DocumentNode } from '@graphql-typed-document-node/core';

/**
 * Map of all GraphQL operations in the project.
 *
 * This map has several performance disadvantages:
 * 1. It is not tree-shakeable, so it will include all operations in the project.
 * 2. It is not minifiable, so the string of a GraphQL query will be multiple times inside the bundle.
 * 3. It does not support dead code elimination, so it will add unused operations.
 *
 * Therefore it is highly recommended to use the babel or swc plugin for production.
 * Learn more about it here: https://the-guild.dev/graphql/codegen/plugins/presets/preset-client#reducing-bundle-size
 */
type Documents = {
    "\n  query Access {\n    payoutAllowance {\n      currency\n    }\n  }\n": typeof types.AccessDocument,
    "\n  fragment AuditRow on AuditEntry {\n    sequence\n    action\n    actor\n    referenceId\n    status\n    amount\n    currency\n    detail\n    at\n    hash\n  }\n": typeof types.AuditRowFragmentDoc,
    "\n  query AuditTrail($first: Int!, $after: String, $filter: AuditFilter) {\n    auditTrail(first: $first, after: $after, filter: $filter) {\n      pageInfo {\n        endCursor\n        hasNextPage\n      }\n      edges {\n        cursor\n        node {\n          ...AuditRow\n        }\n      }\n    }\n  }\n": typeof types.AuditTrailDocument,
    "\n  query KnownPayouts($referenceIds: [ID!]!) {\n    disbursements(referenceIds: $referenceIds) {\n      referenceId\n      status\n      amount\n      accountNumber\n    }\n  }\n": typeof types.KnownPayoutsDocument,
    "\n  fragment BatchRowResult on DisbursementResult {\n    referenceId\n    disbursement {\n      ...PayoutRow\n    }\n    error {\n      code\n      message\n      fields\n    }\n  }\n": typeof types.BatchRowResultFragmentDoc,
    "\n  mutation PayBeneficiaries($inputs: [BeneficiaryPayoutInput!]!) {\n    payBeneficiaries(inputs: $inputs) {\n      ...BatchRowResult\n    }\n  }\n": typeof types.PayBeneficiariesDocument,
    "\n  mutation CreateMobilePayouts($inputs: [MobileMoneyDisbursementInput!]!) {\n    createMobileMoneyDisbursements(inputs: $inputs) {\n      ...BatchRowResult\n    }\n  }\n": typeof types.CreateMobilePayoutsDocument,
    "\n  fragment BeneficiaryRow on Beneficiary {\n    id\n    name\n    channel\n    accountNumber\n    accountHolderName\n    firstName\n    lastName\n    swiftCode\n    phoneNumber\n    email\n    status\n    createdBy\n    createdAt\n    changedAt\n    approvedBy\n    payableFrom\n    detailsFingerprint\n    requestedByYou\n  }\n": typeof types.BeneficiaryRowFragmentDoc,
    "\n  query BeneficiaryList($first: Int!, $after: String, $filter: BeneficiaryFilter) {\n    beneficiaries(first: $first, after: $after, filter: $filter) {\n      totalCount\n      pageInfo {\n        endCursor\n        hasNextPage\n      }\n      edges {\n        cursor\n        node {\n          ...BeneficiaryRow\n        }\n      }\n    }\n  }\n": typeof types.BeneficiaryListDocument,
    "\n  query Beneficiary($id: ID!) {\n    beneficiary(id: $id) {\n      ...BeneficiaryRow\n    }\n  }\n": typeof types.BeneficiaryDocument,
    "\n  mutation CreateBeneficiary($input: BeneficiaryInput!) {\n    createBeneficiary(input: $input) {\n      ...BeneficiaryRow\n    }\n  }\n": typeof types.CreateBeneficiaryDocument,
    "\n  mutation UpdateBeneficiary($id: ID!, $input: BeneficiaryInput!) {\n    updateBeneficiary(id: $id, input: $input) {\n      ...BeneficiaryRow\n    }\n  }\n": typeof types.UpdateBeneficiaryDocument,
    "\n  mutation ArchiveBeneficiary($id: ID!) {\n    archiveBeneficiary(id: $id) {\n      ...BeneficiaryRow\n      cancelledPayouts\n    }\n  }\n": typeof types.ArchiveBeneficiaryDocument,
    "\n  mutation ApproveBeneficiary($id: ID!, $expectedDetails: String!) {\n    approveBeneficiary(id: $id, expectedDetails: $expectedDetails) {\n      ...BeneficiaryRow\n    }\n  }\n": typeof types.ApproveBeneficiaryDocument,
    "\n  query Wallet {\n    walletBalance {\n      amount\n      currency\n      asOf\n    }\n  }\n": typeof types.WalletDocument,
    "\n  query Allowance {\n    payoutAllowance {\n      currency\n      maxAmount\n      approvalAbove\n      dailyRemaining\n      userDailyRemaining\n    }\n  }\n": typeof types.AllowanceDocument,
    "\n  query Statement($from: DateTimeISO!, $to: DateTimeISO!) {\n    payoutStatement(from: $from, to: $to) {\n      from\n      to\n      lines {\n        currency\n        status\n        count\n        amount\n      }\n    }\n  }\n": typeof types.StatementDocument,
    "\n  fragment ReconciliationFields on ReconciliationRun {\n    id\n    state\n    from\n    to\n    checked\n    total\n    startedAt\n    finishedAt\n    failure\n    discrepancies {\n      referenceId\n      kind\n      gatewayStatus\n      providerStatus\n      resolved\n    }\n    balance {\n      opening\n      closing\n      explained\n      unexplained\n      currency\n    }\n  }\n": typeof types.ReconciliationFieldsFragmentDoc,
    "\n  mutation StartReconciliation($from: DateTimeISO!, $to: DateTimeISO!) {\n    startReconciliation(from: $from, to: $to) {\n      ...ReconciliationFields\n    }\n  }\n": typeof types.StartReconciliationDocument,
    "\n  query ReconciliationRun($id: ID!) {\n    reconciliationRun(id: $id) {\n      ...ReconciliationFields\n    }\n  }\n": typeof types.ReconciliationRunDocument,
    "\n  query AuditVerification {\n    auditVerification {\n      verified\n      entries\n      brokenAt\n      reason\n      checkpoint {\n        sequence\n        at\n        keyId\n      }\n    }\n  }\n": typeof types.AuditVerificationDocument,
    "\n  fragment PayoutRow on Disbursement {\n    referenceId\n    status\n    channel\n    paymentType\n    amount\n    currency\n    accountNumber\n    narration\n    message\n    createdAt\n    updatedAt\n    sendAt\n    beneficiaryId\n    sendsAgain\n    approval {\n      requestedBy\n      requestedByYou\n      expiresAt\n      decision\n      decidedBy\n      decidedAt\n      reason\n    }\n  }\n": typeof types.PayoutRowFragmentDoc,
    "\n  query PayoutList($first: Int!, $after: String, $filter: DisbursementFilter) {\n    disbursementHistory(first: $first, after: $after, filter: $filter) {\n      totalCount\n      pageInfo {\n        endCursor\n        hasNextPage\n      }\n      edges {\n        cursor\n        node {\n          ...PayoutRow\n        }\n      }\n    }\n  }\n": typeof types.PayoutListDocument,
    "\n  subscription PayoutChanges($after: String) {\n    disbursementEvents(after: $after) {\n      cursor\n      disbursement {\n        ...PayoutRow\n      }\n    }\n  }\n": typeof types.PayoutChangesDocument,
    "\n  query Payout($referenceId: ID!) {\n    disbursement(referenceId: $referenceId) {\n      ...PayoutRow\n      ...PayoutDetail\n    }\n  }\n": typeof types.PayoutDocument,
    "\n  fragment PayoutDetail on Disbursement {\n    identifier\n    externalId\n    providerStatus\n    history {\n      status\n      providerStatus\n      message\n      source\n      actor\n      at\n      lastAt\n      repeated\n    }\n  }\n": typeof types.PayoutDetailFragmentDoc,
    "\n  subscription PayoutUpdated($referenceId: ID!) {\n    disbursementUpdated(referenceId: $referenceId) {\n      ...PayoutRow\n      ...PayoutDetail\n    }\n  }\n": typeof types.PayoutUpdatedDocument,
    "\n  query PayoutAudit($referenceId: String!) {\n    auditTrail(first: 40, filter: { referenceId: $referenceId }) {\n      pageInfo {\n        hasNextPage\n      }\n      edges {\n        node {\n          ...AuditRow\n        }\n      }\n    }\n  }\n": typeof types.PayoutAuditDocument,
    "\n  mutation ApprovePayout($referenceId: ID!) {\n    approveDisbursement(referenceId: $referenceId) {\n      ...PayoutRow\n    }\n  }\n": typeof types.ApprovePayoutDocument,
    "\n  mutation RejectPayout($referenceId: ID!, $reason: String) {\n    rejectDisbursement(referenceId: $referenceId, reason: $reason) {\n      ...PayoutRow\n    }\n  }\n": typeof types.RejectPayoutDocument,
    "\n  mutation CancelPayout($referenceId: ID!) {\n    cancelDisbursement(referenceId: $referenceId) {\n      ...PayoutRow\n    }\n  }\n": typeof types.CancelPayoutDocument,
    "\n  mutation CreateMobilePayout($input: MobileMoneyDisbursementInput!) {\n    createMobileMoneyDisbursement(input: $input) {\n      ...PayoutRow\n    }\n  }\n": typeof types.CreateMobilePayoutDocument,
    "\n  mutation CreateBankPayout($input: BankDisbursementInput!) {\n    createBankDisbursement(input: $input) {\n      ...PayoutRow\n    }\n  }\n": typeof types.CreateBankPayoutDocument,
    "\n  mutation PayBeneficiary($input: BeneficiaryPayoutInput!) {\n    payBeneficiary(input: $input) {\n      ...PayoutRow\n    }\n  }\n": typeof types.PayBeneficiaryDocument,
};
const documents: Documents = {
    "\n  query Access {\n    payoutAllowance {\n      currency\n    }\n  }\n": types.AccessDocument,
    "\n  fragment AuditRow on AuditEntry {\n    sequence\n    action\n    actor\n    referenceId\n    status\n    amount\n    currency\n    detail\n    at\n    hash\n  }\n": types.AuditRowFragmentDoc,
    "\n  query AuditTrail($first: Int!, $after: String, $filter: AuditFilter) {\n    auditTrail(first: $first, after: $after, filter: $filter) {\n      pageInfo {\n        endCursor\n        hasNextPage\n      }\n      edges {\n        cursor\n        node {\n          ...AuditRow\n        }\n      }\n    }\n  }\n": types.AuditTrailDocument,
    "\n  query KnownPayouts($referenceIds: [ID!]!) {\n    disbursements(referenceIds: $referenceIds) {\n      referenceId\n      status\n      amount\n      accountNumber\n    }\n  }\n": types.KnownPayoutsDocument,
    "\n  fragment BatchRowResult on DisbursementResult {\n    referenceId\n    disbursement {\n      ...PayoutRow\n    }\n    error {\n      code\n      message\n      fields\n    }\n  }\n": types.BatchRowResultFragmentDoc,
    "\n  mutation PayBeneficiaries($inputs: [BeneficiaryPayoutInput!]!) {\n    payBeneficiaries(inputs: $inputs) {\n      ...BatchRowResult\n    }\n  }\n": types.PayBeneficiariesDocument,
    "\n  mutation CreateMobilePayouts($inputs: [MobileMoneyDisbursementInput!]!) {\n    createMobileMoneyDisbursements(inputs: $inputs) {\n      ...BatchRowResult\n    }\n  }\n": types.CreateMobilePayoutsDocument,
    "\n  fragment BeneficiaryRow on Beneficiary {\n    id\n    name\n    channel\n    accountNumber\n    accountHolderName\n    firstName\n    lastName\n    swiftCode\n    phoneNumber\n    email\n    status\n    createdBy\n    createdAt\n    changedAt\n    approvedBy\n    payableFrom\n    detailsFingerprint\n    requestedByYou\n  }\n": types.BeneficiaryRowFragmentDoc,
    "\n  query BeneficiaryList($first: Int!, $after: String, $filter: BeneficiaryFilter) {\n    beneficiaries(first: $first, after: $after, filter: $filter) {\n      totalCount\n      pageInfo {\n        endCursor\n        hasNextPage\n      }\n      edges {\n        cursor\n        node {\n          ...BeneficiaryRow\n        }\n      }\n    }\n  }\n": types.BeneficiaryListDocument,
    "\n  query Beneficiary($id: ID!) {\n    beneficiary(id: $id) {\n      ...BeneficiaryRow\n    }\n  }\n": types.BeneficiaryDocument,
    "\n  mutation CreateBeneficiary($input: BeneficiaryInput!) {\n    createBeneficiary(input: $input) {\n      ...BeneficiaryRow\n    }\n  }\n": types.CreateBeneficiaryDocument,
    "\n  mutation UpdateBeneficiary($id: ID!, $input: BeneficiaryInput!) {\n    updateBeneficiary(id: $id, input: $input) {\n      ...BeneficiaryRow\n    }\n  }\n": types.UpdateBeneficiaryDocument,
    "\n  mutation ArchiveBeneficiary($id: ID!) {\n    archiveBeneficiary(id: $id) {\n      ...BeneficiaryRow\n      cancelledPayouts\n    }\n  }\n": types.ArchiveBeneficiaryDocument,
    "\n  mutation ApproveBeneficiary($id: ID!, $expectedDetails: String!) {\n    approveBeneficiary(id: $id, expectedDetails: $expectedDetails) {\n      ...BeneficiaryRow\n    }\n  }\n": types.ApproveBeneficiaryDocument,
    "\n  query Wallet {\n    walletBalance {\n      amount\n      currency\n      asOf\n    }\n  }\n": types.WalletDocument,
    "\n  query Allowance {\n    payoutAllowance {\n      currency\n      maxAmount\n      approvalAbove\n      dailyRemaining\n      userDailyRemaining\n    }\n  }\n": types.AllowanceDocument,
    "\n  query Statement($from: DateTimeISO!, $to: DateTimeISO!) {\n    payoutStatement(from: $from, to: $to) {\n      from\n      to\n      lines {\n        currency\n        status\n        count\n        amount\n      }\n    }\n  }\n": types.StatementDocument,
    "\n  fragment ReconciliationFields on ReconciliationRun {\n    id\n    state\n    from\n    to\n    checked\n    total\n    startedAt\n    finishedAt\n    failure\n    discrepancies {\n      referenceId\n      kind\n      gatewayStatus\n      providerStatus\n      resolved\n    }\n    balance {\n      opening\n      closing\n      explained\n      unexplained\n      currency\n    }\n  }\n": types.ReconciliationFieldsFragmentDoc,
    "\n  mutation StartReconciliation($from: DateTimeISO!, $to: DateTimeISO!) {\n    startReconciliation(from: $from, to: $to) {\n      ...ReconciliationFields\n    }\n  }\n": types.StartReconciliationDocument,
    "\n  query ReconciliationRun($id: ID!) {\n    reconciliationRun(id: $id) {\n      ...ReconciliationFields\n    }\n  }\n": types.ReconciliationRunDocument,
    "\n  query AuditVerification {\n    auditVerification {\n      verified\n      entries\n      brokenAt\n      reason\n      checkpoint {\n        sequence\n        at\n        keyId\n      }\n    }\n  }\n": types.AuditVerificationDocument,
    "\n  fragment PayoutRow on Disbursement {\n    referenceId\n    status\n    channel\n    paymentType\n    amount\n    currency\n    accountNumber\n    narration\n    message\n    createdAt\n    updatedAt\n    sendAt\n    beneficiaryId\n    sendsAgain\n    approval {\n      requestedBy\n      requestedByYou\n      expiresAt\n      decision\n      decidedBy\n      decidedAt\n      reason\n    }\n  }\n": types.PayoutRowFragmentDoc,
    "\n  query PayoutList($first: Int!, $after: String, $filter: DisbursementFilter) {\n    disbursementHistory(first: $first, after: $after, filter: $filter) {\n      totalCount\n      pageInfo {\n        endCursor\n        hasNextPage\n      }\n      edges {\n        cursor\n        node {\n          ...PayoutRow\n        }\n      }\n    }\n  }\n": types.PayoutListDocument,
    "\n  subscription PayoutChanges($after: String) {\n    disbursementEvents(after: $after) {\n      cursor\n      disbursement {\n        ...PayoutRow\n      }\n    }\n  }\n": types.PayoutChangesDocument,
    "\n  query Payout($referenceId: ID!) {\n    disbursement(referenceId: $referenceId) {\n      ...PayoutRow\n      ...PayoutDetail\n    }\n  }\n": types.PayoutDocument,
    "\n  fragment PayoutDetail on Disbursement {\n    identifier\n    externalId\n    providerStatus\n    history {\n      status\n      providerStatus\n      message\n      source\n      actor\n      at\n      lastAt\n      repeated\n    }\n  }\n": types.PayoutDetailFragmentDoc,
    "\n  subscription PayoutUpdated($referenceId: ID!) {\n    disbursementUpdated(referenceId: $referenceId) {\n      ...PayoutRow\n      ...PayoutDetail\n    }\n  }\n": types.PayoutUpdatedDocument,
    "\n  query PayoutAudit($referenceId: String!) {\n    auditTrail(first: 40, filter: { referenceId: $referenceId }) {\n      pageInfo {\n        hasNextPage\n      }\n      edges {\n        node {\n          ...AuditRow\n        }\n      }\n    }\n  }\n": types.PayoutAuditDocument,
    "\n  mutation ApprovePayout($referenceId: ID!) {\n    approveDisbursement(referenceId: $referenceId) {\n      ...PayoutRow\n    }\n  }\n": types.ApprovePayoutDocument,
    "\n  mutation RejectPayout($referenceId: ID!, $reason: String) {\n    rejectDisbursement(referenceId: $referenceId, reason: $reason) {\n      ...PayoutRow\n    }\n  }\n": types.RejectPayoutDocument,
    "\n  mutation CancelPayout($referenceId: ID!) {\n    cancelDisbursement(referenceId: $referenceId) {\n      ...PayoutRow\n    }\n  }\n": types.CancelPayoutDocument,
    "\n  mutation CreateMobilePayout($input: MobileMoneyDisbursementInput!) {\n    createMobileMoneyDisbursement(input: $input) {\n      ...PayoutRow\n    }\n  }\n": types.CreateMobilePayoutDocument,
    "\n  mutation CreateBankPayout($input: BankDisbursementInput!) {\n    createBankDisbursement(input: $input) {\n      ...PayoutRow\n    }\n  }\n": types.CreateBankPayoutDocument,
    "\n  mutation PayBeneficiary($input: BeneficiaryPayoutInput!) {\n    payBeneficiary(input: $input) {\n      ...PayoutRow\n    }\n  }\n": types.PayBeneficiaryDocument,
};

/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 *
 *
 * @example
 * ```ts
 * const query = graphql(`query GetUser($id: ID!) { user(id: $id) { name } }`);
 * ```
 *
 * The query argument is unknown!
 * Please regenerate the types.
 */
export function graphql(source: string): unknown;

/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query Access {\n    payoutAllowance {\n      currency\n    }\n  }\n"): (typeof documents)["\n  query Access {\n    payoutAllowance {\n      currency\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  fragment AuditRow on AuditEntry {\n    sequence\n    action\n    actor\n    referenceId\n    status\n    amount\n    currency\n    detail\n    at\n    hash\n  }\n"): (typeof documents)["\n  fragment AuditRow on AuditEntry {\n    sequence\n    action\n    actor\n    referenceId\n    status\n    amount\n    currency\n    detail\n    at\n    hash\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query AuditTrail($first: Int!, $after: String, $filter: AuditFilter) {\n    auditTrail(first: $first, after: $after, filter: $filter) {\n      pageInfo {\n        endCursor\n        hasNextPage\n      }\n      edges {\n        cursor\n        node {\n          ...AuditRow\n        }\n      }\n    }\n  }\n"): (typeof documents)["\n  query AuditTrail($first: Int!, $after: String, $filter: AuditFilter) {\n    auditTrail(first: $first, after: $after, filter: $filter) {\n      pageInfo {\n        endCursor\n        hasNextPage\n      }\n      edges {\n        cursor\n        node {\n          ...AuditRow\n        }\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query KnownPayouts($referenceIds: [ID!]!) {\n    disbursements(referenceIds: $referenceIds) {\n      referenceId\n      status\n      amount\n      accountNumber\n    }\n  }\n"): (typeof documents)["\n  query KnownPayouts($referenceIds: [ID!]!) {\n    disbursements(referenceIds: $referenceIds) {\n      referenceId\n      status\n      amount\n      accountNumber\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  fragment BatchRowResult on DisbursementResult {\n    referenceId\n    disbursement {\n      ...PayoutRow\n    }\n    error {\n      code\n      message\n      fields\n    }\n  }\n"): (typeof documents)["\n  fragment BatchRowResult on DisbursementResult {\n    referenceId\n    disbursement {\n      ...PayoutRow\n    }\n    error {\n      code\n      message\n      fields\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation PayBeneficiaries($inputs: [BeneficiaryPayoutInput!]!) {\n    payBeneficiaries(inputs: $inputs) {\n      ...BatchRowResult\n    }\n  }\n"): (typeof documents)["\n  mutation PayBeneficiaries($inputs: [BeneficiaryPayoutInput!]!) {\n    payBeneficiaries(inputs: $inputs) {\n      ...BatchRowResult\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation CreateMobilePayouts($inputs: [MobileMoneyDisbursementInput!]!) {\n    createMobileMoneyDisbursements(inputs: $inputs) {\n      ...BatchRowResult\n    }\n  }\n"): (typeof documents)["\n  mutation CreateMobilePayouts($inputs: [MobileMoneyDisbursementInput!]!) {\n    createMobileMoneyDisbursements(inputs: $inputs) {\n      ...BatchRowResult\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  fragment BeneficiaryRow on Beneficiary {\n    id\n    name\n    channel\n    accountNumber\n    accountHolderName\n    firstName\n    lastName\n    swiftCode\n    phoneNumber\n    email\n    status\n    createdBy\n    createdAt\n    changedAt\n    approvedBy\n    payableFrom\n    detailsFingerprint\n    requestedByYou\n  }\n"): (typeof documents)["\n  fragment BeneficiaryRow on Beneficiary {\n    id\n    name\n    channel\n    accountNumber\n    accountHolderName\n    firstName\n    lastName\n    swiftCode\n    phoneNumber\n    email\n    status\n    createdBy\n    createdAt\n    changedAt\n    approvedBy\n    payableFrom\n    detailsFingerprint\n    requestedByYou\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query BeneficiaryList($first: Int!, $after: String, $filter: BeneficiaryFilter) {\n    beneficiaries(first: $first, after: $after, filter: $filter) {\n      totalCount\n      pageInfo {\n        endCursor\n        hasNextPage\n      }\n      edges {\n        cursor\n        node {\n          ...BeneficiaryRow\n        }\n      }\n    }\n  }\n"): (typeof documents)["\n  query BeneficiaryList($first: Int!, $after: String, $filter: BeneficiaryFilter) {\n    beneficiaries(first: $first, after: $after, filter: $filter) {\n      totalCount\n      pageInfo {\n        endCursor\n        hasNextPage\n      }\n      edges {\n        cursor\n        node {\n          ...BeneficiaryRow\n        }\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query Beneficiary($id: ID!) {\n    beneficiary(id: $id) {\n      ...BeneficiaryRow\n    }\n  }\n"): (typeof documents)["\n  query Beneficiary($id: ID!) {\n    beneficiary(id: $id) {\n      ...BeneficiaryRow\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation CreateBeneficiary($input: BeneficiaryInput!) {\n    createBeneficiary(input: $input) {\n      ...BeneficiaryRow\n    }\n  }\n"): (typeof documents)["\n  mutation CreateBeneficiary($input: BeneficiaryInput!) {\n    createBeneficiary(input: $input) {\n      ...BeneficiaryRow\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation UpdateBeneficiary($id: ID!, $input: BeneficiaryInput!) {\n    updateBeneficiary(id: $id, input: $input) {\n      ...BeneficiaryRow\n    }\n  }\n"): (typeof documents)["\n  mutation UpdateBeneficiary($id: ID!, $input: BeneficiaryInput!) {\n    updateBeneficiary(id: $id, input: $input) {\n      ...BeneficiaryRow\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ArchiveBeneficiary($id: ID!) {\n    archiveBeneficiary(id: $id) {\n      ...BeneficiaryRow\n      cancelledPayouts\n    }\n  }\n"): (typeof documents)["\n  mutation ArchiveBeneficiary($id: ID!) {\n    archiveBeneficiary(id: $id) {\n      ...BeneficiaryRow\n      cancelledPayouts\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ApproveBeneficiary($id: ID!, $expectedDetails: String!) {\n    approveBeneficiary(id: $id, expectedDetails: $expectedDetails) {\n      ...BeneficiaryRow\n    }\n  }\n"): (typeof documents)["\n  mutation ApproveBeneficiary($id: ID!, $expectedDetails: String!) {\n    approveBeneficiary(id: $id, expectedDetails: $expectedDetails) {\n      ...BeneficiaryRow\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query Wallet {\n    walletBalance {\n      amount\n      currency\n      asOf\n    }\n  }\n"): (typeof documents)["\n  query Wallet {\n    walletBalance {\n      amount\n      currency\n      asOf\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query Allowance {\n    payoutAllowance {\n      currency\n      maxAmount\n      approvalAbove\n      dailyRemaining\n      userDailyRemaining\n    }\n  }\n"): (typeof documents)["\n  query Allowance {\n    payoutAllowance {\n      currency\n      maxAmount\n      approvalAbove\n      dailyRemaining\n      userDailyRemaining\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query Statement($from: DateTimeISO!, $to: DateTimeISO!) {\n    payoutStatement(from: $from, to: $to) {\n      from\n      to\n      lines {\n        currency\n        status\n        count\n        amount\n      }\n    }\n  }\n"): (typeof documents)["\n  query Statement($from: DateTimeISO!, $to: DateTimeISO!) {\n    payoutStatement(from: $from, to: $to) {\n      from\n      to\n      lines {\n        currency\n        status\n        count\n        amount\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  fragment ReconciliationFields on ReconciliationRun {\n    id\n    state\n    from\n    to\n    checked\n    total\n    startedAt\n    finishedAt\n    failure\n    discrepancies {\n      referenceId\n      kind\n      gatewayStatus\n      providerStatus\n      resolved\n    }\n    balance {\n      opening\n      closing\n      explained\n      unexplained\n      currency\n    }\n  }\n"): (typeof documents)["\n  fragment ReconciliationFields on ReconciliationRun {\n    id\n    state\n    from\n    to\n    checked\n    total\n    startedAt\n    finishedAt\n    failure\n    discrepancies {\n      referenceId\n      kind\n      gatewayStatus\n      providerStatus\n      resolved\n    }\n    balance {\n      opening\n      closing\n      explained\n      unexplained\n      currency\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation StartReconciliation($from: DateTimeISO!, $to: DateTimeISO!) {\n    startReconciliation(from: $from, to: $to) {\n      ...ReconciliationFields\n    }\n  }\n"): (typeof documents)["\n  mutation StartReconciliation($from: DateTimeISO!, $to: DateTimeISO!) {\n    startReconciliation(from: $from, to: $to) {\n      ...ReconciliationFields\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ReconciliationRun($id: ID!) {\n    reconciliationRun(id: $id) {\n      ...ReconciliationFields\n    }\n  }\n"): (typeof documents)["\n  query ReconciliationRun($id: ID!) {\n    reconciliationRun(id: $id) {\n      ...ReconciliationFields\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query AuditVerification {\n    auditVerification {\n      verified\n      entries\n      brokenAt\n      reason\n      checkpoint {\n        sequence\n        at\n        keyId\n      }\n    }\n  }\n"): (typeof documents)["\n  query AuditVerification {\n    auditVerification {\n      verified\n      entries\n      brokenAt\n      reason\n      checkpoint {\n        sequence\n        at\n        keyId\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  fragment PayoutRow on Disbursement {\n    referenceId\n    status\n    channel\n    paymentType\n    amount\n    currency\n    accountNumber\n    narration\n    message\n    createdAt\n    updatedAt\n    sendAt\n    beneficiaryId\n    sendsAgain\n    approval {\n      requestedBy\n      requestedByYou\n      expiresAt\n      decision\n      decidedBy\n      decidedAt\n      reason\n    }\n  }\n"): (typeof documents)["\n  fragment PayoutRow on Disbursement {\n    referenceId\n    status\n    channel\n    paymentType\n    amount\n    currency\n    accountNumber\n    narration\n    message\n    createdAt\n    updatedAt\n    sendAt\n    beneficiaryId\n    sendsAgain\n    approval {\n      requestedBy\n      requestedByYou\n      expiresAt\n      decision\n      decidedBy\n      decidedAt\n      reason\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query PayoutList($first: Int!, $after: String, $filter: DisbursementFilter) {\n    disbursementHistory(first: $first, after: $after, filter: $filter) {\n      totalCount\n      pageInfo {\n        endCursor\n        hasNextPage\n      }\n      edges {\n        cursor\n        node {\n          ...PayoutRow\n        }\n      }\n    }\n  }\n"): (typeof documents)["\n  query PayoutList($first: Int!, $after: String, $filter: DisbursementFilter) {\n    disbursementHistory(first: $first, after: $after, filter: $filter) {\n      totalCount\n      pageInfo {\n        endCursor\n        hasNextPage\n      }\n      edges {\n        cursor\n        node {\n          ...PayoutRow\n        }\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  subscription PayoutChanges($after: String) {\n    disbursementEvents(after: $after) {\n      cursor\n      disbursement {\n        ...PayoutRow\n      }\n    }\n  }\n"): (typeof documents)["\n  subscription PayoutChanges($after: String) {\n    disbursementEvents(after: $after) {\n      cursor\n      disbursement {\n        ...PayoutRow\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query Payout($referenceId: ID!) {\n    disbursement(referenceId: $referenceId) {\n      ...PayoutRow\n      ...PayoutDetail\n    }\n  }\n"): (typeof documents)["\n  query Payout($referenceId: ID!) {\n    disbursement(referenceId: $referenceId) {\n      ...PayoutRow\n      ...PayoutDetail\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  fragment PayoutDetail on Disbursement {\n    identifier\n    externalId\n    providerStatus\n    history {\n      status\n      providerStatus\n      message\n      source\n      actor\n      at\n      lastAt\n      repeated\n    }\n  }\n"): (typeof documents)["\n  fragment PayoutDetail on Disbursement {\n    identifier\n    externalId\n    providerStatus\n    history {\n      status\n      providerStatus\n      message\n      source\n      actor\n      at\n      lastAt\n      repeated\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  subscription PayoutUpdated($referenceId: ID!) {\n    disbursementUpdated(referenceId: $referenceId) {\n      ...PayoutRow\n      ...PayoutDetail\n    }\n  }\n"): (typeof documents)["\n  subscription PayoutUpdated($referenceId: ID!) {\n    disbursementUpdated(referenceId: $referenceId) {\n      ...PayoutRow\n      ...PayoutDetail\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query PayoutAudit($referenceId: String!) {\n    auditTrail(first: 40, filter: { referenceId: $referenceId }) {\n      pageInfo {\n        hasNextPage\n      }\n      edges {\n        node {\n          ...AuditRow\n        }\n      }\n    }\n  }\n"): (typeof documents)["\n  query PayoutAudit($referenceId: String!) {\n    auditTrail(first: 40, filter: { referenceId: $referenceId }) {\n      pageInfo {\n        hasNextPage\n      }\n      edges {\n        node {\n          ...AuditRow\n        }\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ApprovePayout($referenceId: ID!) {\n    approveDisbursement(referenceId: $referenceId) {\n      ...PayoutRow\n    }\n  }\n"): (typeof documents)["\n  mutation ApprovePayout($referenceId: ID!) {\n    approveDisbursement(referenceId: $referenceId) {\n      ...PayoutRow\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation RejectPayout($referenceId: ID!, $reason: String) {\n    rejectDisbursement(referenceId: $referenceId, reason: $reason) {\n      ...PayoutRow\n    }\n  }\n"): (typeof documents)["\n  mutation RejectPayout($referenceId: ID!, $reason: String) {\n    rejectDisbursement(referenceId: $referenceId, reason: $reason) {\n      ...PayoutRow\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation CancelPayout($referenceId: ID!) {\n    cancelDisbursement(referenceId: $referenceId) {\n      ...PayoutRow\n    }\n  }\n"): (typeof documents)["\n  mutation CancelPayout($referenceId: ID!) {\n    cancelDisbursement(referenceId: $referenceId) {\n      ...PayoutRow\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation CreateMobilePayout($input: MobileMoneyDisbursementInput!) {\n    createMobileMoneyDisbursement(input: $input) {\n      ...PayoutRow\n    }\n  }\n"): (typeof documents)["\n  mutation CreateMobilePayout($input: MobileMoneyDisbursementInput!) {\n    createMobileMoneyDisbursement(input: $input) {\n      ...PayoutRow\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation CreateBankPayout($input: BankDisbursementInput!) {\n    createBankDisbursement(input: $input) {\n      ...PayoutRow\n    }\n  }\n"): (typeof documents)["\n  mutation CreateBankPayout($input: BankDisbursementInput!) {\n    createBankDisbursement(input: $input) {\n      ...PayoutRow\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation PayBeneficiary($input: BeneficiaryPayoutInput!) {\n    payBeneficiary(input: $input) {\n      ...PayoutRow\n    }\n  }\n"): (typeof documents)["\n  mutation PayBeneficiary($input: BeneficiaryPayoutInput!) {\n    payBeneficiary(input: $input) {\n      ...PayoutRow\n    }\n  }\n"];

export function graphql(source: string) {
  return (documents as any)[source] ?? {};
}

export type DocumentType<TDocumentNode extends DocumentNode<any, any>> = TDocumentNode extends DocumentNode<  infer TType,  any>  ? TType  : never;