import { badInput } from '../../disbursements/disbursement.errors';
import { HistoryPosition } from '../../disbursements/disbursement.ports';

/** base64url of `[at, referenceId]`: opaque to clients, and a position that never moves. */
export function encodeCursor(position: HistoryPosition): string {
  return Buffer.from(JSON.stringify([position.at, position.referenceId])).toString('base64url');
}

export function decodeCursor(cursor: string): HistoryPosition {
  try {
    const parsed: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (
      Array.isArray(parsed) &&
      parsed.length === 2 &&
      Number.isSafeInteger(parsed[0]) &&
      typeof parsed[1] === 'string'
    ) {
      return { at: parsed[0] as number, referenceId: parsed[1] };
    }
  } catch {
    // Not ours: refused below.
  }
  throw badInput('after is not a cursor this gateway gave out', ['after']);
}
