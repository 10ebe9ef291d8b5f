/**
 * A new payout's referenceId, made once per payout the person means to make and kept for every
 * retry of it: after OUTCOME_UNKNOWN or a network error, the same one is safe, a new one could pay twice.
 */
export function newReference(prefix = 'pay'): string {
  const bytes = crypto.getRandomValues(new Uint8Array(6));
  const stamp = new Date().toISOString().slice(0, 10).replace(/-/g, '');
  return `${prefix}-${stamp}-${Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')}`;
}
