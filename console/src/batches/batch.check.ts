import type { ApolloClient } from '@apollo/client';
import { BENEFICIARY } from '../beneficiaries/beneficiaries.operations';
import type { BeneficiaryRowFragment, DisbursementStatus } from '../gql/graphql';
import { problemsOf, type Problem } from '../shared/problem';
import type { BatchRow } from './batch.rows';
import { KNOWN_PAYOUTS } from './batches.operations';

export interface CheckedRow extends BatchRow {
  /** The payout its reference already has: sending the row again returns it and pays nothing. */
  existing?: DisbursementStatus;
  /** The beneficiary's name, for the reviewer. */
  payee?: string;
  /** The gateway's refusal to read its beneficiary: not sent. */
  refusal?: Problem;
  /** Its beneficiary was not read (the token may not): the API checks it when the row is sent. */
  unchecked?: boolean;
}

/** Whether a checked row goes out when the batch is sent. */
export function sendable(row: CheckedRow): boolean {
  return row.problems.length === 0 && !row.refusal;
}

/**
 * The API's check of rows the browser passed: which references already have a payout, and each
 * beneficiary exists and is payable, when the token may read beneficiaries (`readsBeneficiaries`);
 * without, paying one needs only payouts:write, so its rows pass and the API decides when they are
 * sent. Nothing is sent.
 */
export async function checkWithApi(
  client: ApolloClient,
  rows: readonly BatchRow[],
  readsBeneficiaries: boolean,
): Promise<CheckedRow[]> {
  const references = rows.filter((row) => row.problems.length === 0).map((row) => row.reference);
  const known = references.length
    ? await client.query({ query: KNOWN_PAYOUTS, variables: { referenceIds: references }, fetchPolicy: 'network-only' })
    : undefined;
  const existing = new Map(
    (known?.data?.disbursements ?? []).flatMap((payout) =>
      payout ? [[payout.referenceId, payout.status] as const] : [],
    ),
  );
  const ids = readsBeneficiaries
    ? [...new Set(rows.filter((r) => r.kind === 'beneficiary' && r.problems.length === 0).map((r) => r.recipient))]
    : [];
  const found = new Map<string, BeneficiaryRowFragment | null | Problem>(
    await Promise.all(
      ids.map(async (id) => {
        try {
          const { data } = await client.query({ query: BENEFICIARY, variables: { id }, fetchPolicy: 'network-only' });
          return [id, data?.beneficiary ?? null] as const;
        } catch (error) {
          return [id, problemsOf(error)[0]] as const;
        }
      }),
    ),
  );
  return rows.map((row) => {
    const checked: CheckedRow = { ...row, problems: [...row.problems], existing: existing.get(row.reference) };
    if (row.kind !== 'beneficiary' || row.problems.length > 0) return checked;
    if (!readsBeneficiaries) return { ...checked, unchecked: true };
    const beneficiary = found.get(row.recipient);
    if (beneficiary && 'message' in beneficiary) checked.refusal = beneficiary;
    else if (!beneficiary) checked.problems.push('no beneficiary has this id');
    else {
      checked.payee = beneficiary.name;
      if (beneficiary.status !== 'ACTIVE' && !checked.existing)
        checked.problems.push(`beneficiary is ${beneficiary.status}: not payable`);
    }
    return checked;
  });
}
