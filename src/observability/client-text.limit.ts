/**
 * Longest text a client chose that a log field or a metric label keeps. Both are written for every
 * operation (a label is also kept for the life of the process), so their size must not be the client's to pick.
 */
export const MAX_CLIENT_TEXT_LENGTH = 64;

/** Ends a cut value, so a reader knows there was more. */
const CUT_MARK = '…';

/** A client-chosen value for a log field: as it is up to MAX_CLIENT_TEXT_LENGTH characters, else its start and CUT_MARK. */
export function clientText(text: string): string;
export function clientText(text: string | undefined): string | undefined;
export function clientText(text: string | undefined): string | undefined {
  if (text === undefined || text.length <= MAX_CLIENT_TEXT_LENGTH) return text;
  // Never half of a surrogate pair: the line stays well-formed text.
  const last = text.charCodeAt(MAX_CLIENT_TEXT_LENGTH - 1);
  const end = last >= 0xd800 && last <= 0xdbff ? MAX_CLIENT_TEXT_LENGTH - 1 : MAX_CLIENT_TEXT_LENGTH;
  return text.slice(0, end) + CUT_MARK;
}
