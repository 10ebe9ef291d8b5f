import { createHash } from 'node:crypto';
import { DisbursementRequest } from './disbursement.model';

function entries(request: DisbursementRequest): [string, string][] {
  return Object.entries(request)
    .filter((e): e is [string, string] => typeof e[1] === 'string')
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/** Identifies a request's content, so a retry is told apart from a different payout under the same referenceId. */
export function fingerprint(request: DisbursementRequest): string {
  return createHash('sha256')
    .update(JSON.stringify(entries(request)))
    .digest('base64url');
}

/** The fields whose values differ between two requests, for a REFERENCE_CONFLICT message. */
export function differingFields(a: DisbursementRequest, b: DisbursementRequest): string[] {
  const left = new Map(entries(a));
  const right = new Map(entries(b));
  const keys = new Set([...left.keys(), ...right.keys()]);
  return [...keys].filter((k) => left.get(k) !== right.get(k)).sort();
}
