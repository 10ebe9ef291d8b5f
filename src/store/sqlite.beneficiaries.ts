import type { Database } from 'better-sqlite3';
import { AuditDraft } from '../disbursements/audit.entry';
import { accountKey, Beneficiary, BeneficiaryPage, BeneficiaryQuery } from '../disbursements/beneficiary.model';
import { BeneficiaryWrite } from '../disbursements/disbursement.ports';
import {
  ACTIVE_DUPLICATE,
  bookQuery,
  GET_BENEFICIARY,
  INSERT_BENEFICIARY,
  insertValues,
  UPDATE_BENEFICIARY,
  updateValues,
} from './beneficiary.statements';

type Append = (merchantId: string, drafts: readonly AuditDraft[]) => void;
const parsed = (row: unknown) => (row ? (JSON.parse((row as { record: string }).record) as Beneficiary) : undefined);

/**
 * The beneficiary book on the embedded file, each function run by SqliteStore inside its one
 * transaction (the audit entries appended in it), so a check and its write are one step.
 */
export function readBeneficiary(db: Database, merchantId: string, id: string): Beneficiary | undefined {
  return parsed(db.prepare(GET_BENEFICIARY).get(merchantId, id));
}

function duplicateOf(db: Database, b: Beneficiary): Beneficiary | undefined {
  return parsed(db.prepare(ACTIVE_DUPLICATE).get(b.merchantId, accountKey(b.details), b.id));
}

export function insertBeneficiaryRow(db: Database, write: BeneficiaryWrite, append: Append): Beneficiary | undefined {
  const { beneficiary } = write;
  const duplicate = duplicateOf(db, beneficiary);
  if (duplicate) return duplicate;
  db.prepare(INSERT_BENEFICIARY).run(...insertValues(beneficiary));
  append(beneficiary.merchantId, write.audit);
  return undefined;
}

export function updateBeneficiaryRow(
  db: Database,
  merchantId: string,
  id: string,
  change: (current: Beneficiary) => BeneficiaryWrite | undefined,
  append: Append,
): { stored?: Beneficiary; duplicate?: Beneficiary } {
  const current = readBeneficiary(db, merchantId, id);
  if (!current) return {};
  const write = change(current);
  if (!write) return { stored: current };
  const { beneficiary } = write;
  const duplicate = beneficiary.status === 'ARCHIVED' ? undefined : duplicateOf(db, beneficiary);
  if (duplicate) return { duplicate };
  db.prepare(UPDATE_BENEFICIARY).run(...updateValues(beneficiary));
  append(merchantId, write.audit);
  return { stored: beneficiary };
}

export function beneficiaryPage(db: Database, merchantId: string, query: BeneficiaryQuery): BeneficiaryPage {
  const { page, count } = bookQuery(merchantId, query);
  const rows = db.prepare(page.sql).all(...page.values);
  const { count: totalCount } = db.prepare(count.sql).get(...count.values) as { count: number };
  return {
    beneficiaries: rows.slice(0, query.limit).map((row) => parsed(row) as Beneficiary),
    hasMore: rows.length > query.limit,
    totalCount,
  };
}
