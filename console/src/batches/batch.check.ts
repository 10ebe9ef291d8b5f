import type { ApolloClient } from '@apollo/client';
import { BENEFICIARY } from '../beneficiaries/beneficiaries.operations';
import type { BeneficiaryRowFragment, DisbursementStatus } from '../gql/graphql';
import { problemsOf } from '../shared/problem';
import type { BatchRow } from './batch.rows';
import { KNOWN_PAYOUTS } from './batches.operations';

export interface CheckedRow extends BatchRow {
  /** The payout its reference already has: sending the row again returns it and pays nothing. */
  existing?: DisbursementStatus;
  /** The beneficiary's name, for the reviewer. */
  payee?: string;
}

/**
 * The API's check of rows the browser passed: each beneficiary exists and is payable, and which
 * references already have a payout. Nothing is sent.
 */
export async function checkWithApi(client: ApolloClient, rows: readonly BatchRow[]): Promise<CheckedRow[]> {
  const references = rows.filter((row) => row.problems.length === 0).map((row) => row.reference);
  const known = references.length
    ? await client.query({ query: KNOWN_PAYOUTS, variables: { referenceIds: references }, fetchPolicy: 'network-only' })
    : undefined;
  const existing = new Map(
    (known?.data?.disbursements ?? []).flatMap((payout) =>
      payout ? [[payout.referenceId, payout.status] as const] : [],
    ),
  );
  const ids = [
    ...new Set(rows.filter((r) => r.kind === 'beneficiary' && r.problems.length === 0).map((r) => r.recipient)),
  ];
  const found = new Map<string, BeneficiaryRowFragment | null | string>(
    await Promise.all(
      ids.map(async (id) => {
        try {
          const { data } = await client.query({ query: BENEFICIARY, variables: { id }, fetchPolicy: 'network-only' });
          return [id, data?.beneficiary ?? null] as const;
        } catch (error) {
          return [id, problemsOf(error)[0]?.message ?? 'could not be read'] as const;
        }
      }),
    ),
  );
  return rows.map((row) => {
    const checked: CheckedRow = { ...row, problems: [...row.problems], existing: existing.get(row.reference) };
    if (row.kind !== 'beneficiary' || row.problems.length > 0) return checked;
    const beneficiary = found.get(row.recipient);
    if (typeof beneficiary === 'string') checked.problems.push(`beneficiary: ${beneficiary}`);
    else if (!beneficiary) checked.problems.push('no beneficiary has this id');
    else {
      checked.payee = beneficiary.name;
      if (beneficiary.status !== 'ACTIVE' && !checked.existing)
        checked.problems.push(`beneficiary is ${beneficiary.status}: not payable`);
    }
    return checked;
  });
}
