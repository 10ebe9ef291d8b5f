import { MAX_CLIENT_TEXT_LENGTH } from './client-text.limit';

/** The operations of examples/operations.graphql (a test keeps the two the same): always their own label. */
export const EXAMPLE_OPERATIONS: readonly string[] = [
  'ApproveBeneficiary',
  'ApproveDisbursement',
  'ApproveDisbursements',
  'ArchiveBeneficiary',
  'CancelDisbursement',
  'CreateBankDisbursement',
  'CreateBankDisbursements',
  'CreateBeneficiary',
  'CreateMobileMoneyDisbursement',
  'CreateMobileMoneyDisbursements',
  'DisbursementEvents',
  'GetBeneficiaries',
  'GetBeneficiary',
  'GetDisbursement',
  'GetDisbursementHistory',
  'GetDisbursements',
  'GetPayoutAllowance',
  'GetWalletBalance',
  'PayBeneficiaries',
  'PayBeneficiary',
  'RejectDisbursement',
  'UpdateBeneficiary',
  'WatchDisbursement',
  'WatchDisbursements',
];

/** Distinct names beyond the examples that get a label of their own; every later one counts as `other`. */
export const MAX_EXTRA_OPERATION_LABELS = 50;

/**
 * Operation names as metric labels, from a bounded set: each label is a series kept for the life of
 * the process, so names chosen by clients must not grow it without end.
 */
export class OperationLabels {
  private known = new Set(EXAMPLE_OPERATIONS);
  private readonly extra = new Set<string>();
  private maxExtra = MAX_EXTRA_OPERATION_LABELS;

  /** With TRUSTED_DOCUMENTS: the manifest's operation names are the labels; any other name (log mode) is `other`. */
  useOnly(names: Iterable<string>): void {
    this.known = new Set(names);
    this.extra.clear();
    this.maxExtra = 0;
  }

  /** `name` is the name of the operation the document actually holds (never one only the request claimed). */
  label(name: string | undefined): string {
    if (!name) return 'anonymous';
    if (this.known.has(name) || this.extra.has(name)) return name;
    // A longer name is `other`, so the page stays small whatever clients name.
    if (name.length > MAX_CLIENT_TEXT_LENGTH) return 'other';
    if (this.extra.size >= this.maxExtra) return 'other';
    this.extra.add(name);
    return name;
  }
}
