/**
 * Whether a PostgreSQL error means the database could not answer (unreachable, restarting, out of
 * resources, a timeout) rather than a mistake in what was asked. SQLSTATE classes 22 (data), 23
 * (integrity), 42 (syntax or access) and P0 (raised by a function) are the gateway's own mistakes;
 * anything else, and any error with no SQLSTATE at all (a refused or dropped connection), is an outage.
 */
export function isOutage(error: unknown): boolean {
  const code = (error as { code?: unknown } | undefined)?.code;
  return !(typeof code === 'string' && /^(22|23|42|P0)[0-9A-Z]{3}$/.test(code));
}
