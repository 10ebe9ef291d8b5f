import { AuditDraft, KeyedDraft } from '../disbursements/audit.entry';
import { Beneficiary } from '../disbursements/beneficiary.model';
import { BeneficiaryWrite } from '../disbursements/disbursement.ports';
import { Sql } from '../database/sql.dialect';
import { activeWithKey, insertRow, updateRow } from './beneficiary.statements';

/*
 * The beneficiary book's writes, written once for both engines: what is checked, what is written and
 * which audit entries go with it. An engine only runs the statements (BookStatements). Each write is
 * one conditional statement that refuses itself, so no lock is held between statements: an insert
 * stores nothing while an active beneficiary holds the same account key (the unique index decides
 * between concurrent ones); an update writes only over the record text its change was made on, and
 * is made again on the row as it now is when that text has moved.
 */

/** One conditional write of the book and what goes with it. */
export interface BookWrite {
  merchantId: string;
  /** Its kind, for an engine that names each statement shape. */
  shape: 'insert' | 'update' | 'archive';
  /** The write: answers a row when it happened. */
  write: Sql;
  /** The active beneficiary whose account key stops the write, when one does. */
  duplicate?: Sql;
  /** Keyed by the store, appended to the merchant's chain in the same atomic step, when the write happened. */
  audit: readonly KeyedDraft[];
}

/** How the store keys a write's audit entries (audit.entry.ts `keyed`). */
export type Keying = (merchantId: string, drafts: readonly AuditDraft[]) => KeyedDraft[];

/** What a write did: written, or else the record text of the duplicate that stopped it when one is seen. */
export interface Written {
  done: boolean;
  duplicate?: string;
}

/** How an engine runs the book's statements. */
export interface BookStatements {
  /** The stored record's text. */
  read(merchantId: string, id: string): Promise<string | undefined>;
  /**
   * Runs the write, its audit entries appended with it or not at all. Not done and no duplicate: a
   * write that committed meanwhile stopped it (moved the row, or took the key first); try again.
   */
  write(step: BookWrite): Promise<Written>;
}

const parsed = (text: string) => JSON.parse(text) as Beneficiary;

export async function insertBeneficiary(
  book: BookStatements,
  write: BeneficiaryWrite,
  keyed: Keying,
): Promise<{ duplicate?: Beneficiary }> {
  const { beneficiary } = write;
  const step: BookWrite = {
    merchantId: beneficiary.merchantId,
    shape: 'insert',
    write: insertRow(beneficiary),
    duplicate: activeWithKey(beneficiary.merchantId, beneficiary.details),
    audit: keyed(beneficiary.merchantId, write.audit),
  };
  for (;;) {
    const { done, duplicate } = await book.write(step);
    if (done) return {};
    if (duplicate !== undefined) return { duplicate: parsed(duplicate) };
    // The key was taken by an insert that committed after this one began: it is seen now.
  }
}

export async function updateBeneficiary(
  book: BookStatements,
  merchantId: string,
  id: string,
  change: (current: Beneficiary) => BeneficiaryWrite | undefined,
  keyed: Keying,
): Promise<{ stored?: Beneficiary; duplicate?: Beneficiary }> {
  for (;;) {
    const text = await book.read(merchantId, id);
    if (text === undefined) return {};
    const current = parsed(text);
    const write = change(current);
    if (!write) return { stored: current };
    const { beneficiary } = write;
    const archive = beneficiary.status === 'ARCHIVED';
    const { done, duplicate } = await book.write({
      merchantId,
      shape: archive ? 'archive' : 'update',
      write: updateRow(merchantId, id, text, beneficiary),
      duplicate: archive ? undefined : activeWithKey(merchantId, beneficiary.details, id),
      audit: keyed(merchantId, write.audit),
    });
    if (done) return { stored: beneficiary };
    if (duplicate !== undefined) return { duplicate: parsed(duplicate) };
  }
}
