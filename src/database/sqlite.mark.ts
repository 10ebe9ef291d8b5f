import { readFileSync, realpathSync, renameSync, writeFileSync } from 'node:fs';
import { BACKUP_TAKEN_AT, DATABASE_ID, sqliteFacts } from './history.rewinds';
import { SqliteFile } from './sqlite.open';

/** How far the file's history has come: every change any merchant's change log records adds one. */
const HOW_FAR = 'SELECT coalesce(sum(change_position), 0) AS mark FROM merchant_heads';

interface SavedMark {
  databaseId: string;
  mark: number;
}

/** The high-water mark beside the embedded file: what the file had reached, kept where a restore of the file cannot carry it back. */
export interface HistoryMark {
  /** Writes the mark when the file has come further since the last save. */
  save(): void;
}

/** The mark's file: beside the database file itself (a symlink is followed), `<file>.mark`. */
export const markPath = (path: string) => `${realpathSync(path)}.mark`;

function readMark(file: string): SavedMark | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  try {
    const parsed = JSON.parse(text) as Partial<SavedMark>;
    if (typeof parsed.databaseId === 'string' && typeof parsed.mark === 'number')
      return { databaseId: parsed.databaseId, mark: parsed.mark };
  } catch {
    // A mark that cannot be read says nothing either way; it is written anew.
  }
  return undefined;
}

/**
 * At open: finds whether the embedded file went back in time, records it as a rewind when it did,
 * and keeps the mark from then on. The file went back when it is a copy db:backup made, started on
 * for the first time, or when the mark beside it says the file had come further, or was another
 * database (an older copy put in place by hand, a file deleted and made anew). Answers why, if it did.
 */
export async function checkHistory(
  { db, writes }: SqliteFile,
  path: string,
  now: () => number,
): Promise<{ rewound?: string; mark: HistoryMark }> {
  const facts = sqliteFacts(db);
  const howFar = db.prepare(HOW_FAR);
  const databaseId = facts.fact(DATABASE_ID) ?? '';
  const file = markPath(path);
  const saved = readMark(file);
  const reached = (howFar.get() as { mark: number }).mark;
  const backupTakenAt = facts.fact(BACKUP_TAKEN_AT);
  let rewound: string | undefined;
  if (backupTakenAt !== undefined) rewound = `started on a backup taken at ${backupTakenAt}`;
  else if (saved && saved.databaseId !== databaseId) rewound = 'the file is not the database this folder last ran on';
  else if (saved && saved.mark > reached)
    rewound = `the file holds ${reached} changes, but had reached ${saved.mark}: it is an older copy`;
  if (rewound !== undefined) {
    const reason = rewound;
    await writes.write(() => {
      facts.recordRewind(now(), reason);
      facts.dropFact(BACKUP_TAKEN_AT);
    });
  }
  let written = -1;
  const mark: HistoryMark = {
    save() {
      const current = (howFar.get() as { mark: number }).mark;
      if (current === written) return;
      // Written whole, then renamed: a crash never leaves half a mark.
      writeFileSync(`${file}.tmp`, JSON.stringify({ databaseId, mark: current } satisfies SavedMark));
      renameSync(`${file}.tmp`, file);
      written = current;
    },
  };
  mark.save();
  return { rewound, mark };
}
