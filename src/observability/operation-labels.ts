/** The operations of examples/operations.graphql (a test keeps the two the same): always their own label. */
export const EXAMPLE_OPERATIONS: readonly string[] = [
  'CreateBankDisbursement',
  'CreateBankDisbursements',
  'CreateMobileMoneyDisbursement',
  'CreateMobileMoneyDisbursements',
  'GetDisbursement',
  'GetDisbursementHistory',
  'GetDisbursements',
  'GetWalletBalance',
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
  private readonly known = new Set(EXAMPLE_OPERATIONS);
  private readonly extra = new Set<string>();

  /** `name` is the name of the operation the document actually holds (never one only the request claimed). */
  label(name: string | undefined): string {
    if (!name) return 'anonymous';
    if (this.known.has(name) || this.extra.has(name)) return name;
    if (this.extra.size >= MAX_EXTRA_OPERATION_LABELS) return 'other';
    this.extra.add(name);
    return name;
  }
}
