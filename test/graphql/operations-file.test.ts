import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildSchema, Kind, parse, validate } from 'graphql';
import { EXAMPLE_OPERATIONS } from '../../src/observability/operation.labels';

describe('examples/operations.graphql', () => {
  it('is valid against the committed schema, so codegen users can point at it', () => {
    const root = join(__dirname, '..', '..');
    const schema = buildSchema(readFileSync(join(root, 'schema.graphql'), 'utf8'));
    const document = parse(readFileSync(join(root, 'examples', 'operations.graphql'), 'utf8'));
    expect(validate(schema, document).map((e) => e.message)).toEqual([]);
    const names = document.definitions.flatMap((d) =>
      d.kind === Kind.OPERATION_DEFINITION && d.name ? [d.name.value] : [],
    );
    expect(names.sort()).toEqual([
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
    ]);
    // They are the operation-name metric labels that are always kept.
    expect([...EXAMPLE_OPERATIONS].sort()).toEqual(names.sort());
  });
});
