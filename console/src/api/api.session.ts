/** The token a person signed in with, kept in this tab's sessionStorage only: closing the tab signs out. */
const KEY = 'console.token';

/** The gateway's scopes the console offers things by; a shared token and open access carry every one. */
export const SCOPES = {
  read: 'payouts:read',
  write: 'payouts:write',
  approve: 'payouts:approve',
  audit: 'audit:read',
  /** Exporting payouts in bulk (CSV): neither payouts:read nor payouts:write grants it. */
  export: 'payouts:export',
  beneficiariesRead: 'beneficiaries:read',
  beneficiariesWrite: 'beneficiaries:write',
} as const;
export type Scope = (typeof SCOPES)[keyof typeof SCOPES];

export interface Session {
  token?: string;
  /** The JWT's sub: who the history and the approvals name. Unknown for a client token and open access. */
  subject?: string;
  /** The JWT's scopes; unknown (undefined) for a client token and open access, which the gateway gives every scope. */
  scopes?: ReadonlySet<string>;
}

export function readToken(): string | undefined {
  return sessionStorage.getItem(KEY) ?? undefined;
}

export function saveToken(token: string | undefined): void {
  if (token) sessionStorage.setItem(KEY, token);
  else sessionStorage.removeItem(KEY);
}

function claimsOf(token: string): Record<string, unknown> | undefined {
  const parts = token.split('.');
  if (parts.length !== 3) return undefined;
  try {
    const json = atob(parts[1].replace(/-/g, '+').replace(/_/g, '/'));
    const claims: unknown = JSON.parse(json);
    return typeof claims === 'object' && claims !== null ? (claims as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * What the page may offer, read from the token without checking it: the gateway checks every
 * request; this only hides what would be refused. `scope` (space-separated) and `scp`, as the gateway reads them.
 */
export function sessionOf(token: string | undefined): Session {
  if (!token) return {};
  const claims = claimsOf(token);
  if (!claims) return { token };
  const listed = [claims.scope, claims.scp].flatMap((value) => {
    if (typeof value === 'string') return value.split(' ');
    if (Array.isArray(value)) return value.filter((v): v is string => typeof v === 'string');
    return [];
  });
  return {
    token,
    subject: typeof claims.sub === 'string' ? claims.sub : undefined,
    scopes: new Set(listed.filter((s) => s !== '')),
  };
}

/** Whether to offer what needs `scope`: unknown scopes offer everything, and the gateway answers. */
export function allows(session: Session, scope: Scope): boolean {
  return session.scopes === undefined || session.scopes.has(scope);
}
