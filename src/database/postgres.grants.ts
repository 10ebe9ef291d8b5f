import { escapeIdentifier } from 'pg';
import { POSTGRES_SCHEMA } from './postgres.migrations';
import { DECLARED_TABLES } from './schema.declared';

/**
 * What the gateway's own role (DATABASE_URL, where DATABASE_OWNER_URL names another) may do, as the
 * declared schema says: every table's `gateway` access and the functions it may call. Run under the
 * migration lock after every migration, it first takes back whatever the role had on the tables, so
 * the grants are exactly the declared ones (an access narrowed in a declaration is narrowed in the
 * database too). One statement text, no parameters: the role's name is quoted as an identifier.
 */
export function gatewayGrants(role: string): string {
  const to = escapeIdentifier(role);
  const tables = [...DECLARED_TABLES, ...POSTGRES_SCHEMA.tables];
  const named = (access: 'write' | 'read') =>
    tables
      .filter((t) => t.gateway === access)
      .map((t) => t.name)
      .join(', ');
  return [
    `GRANT USAGE ON SCHEMA public TO ${to}`,
    `REVOKE ALL ON ALL TABLES IN SCHEMA public FROM ${to}`,
    `GRANT SELECT, INSERT, UPDATE, DELETE ON ${named('write')} TO ${to}`,
    `GRANT SELECT ON ${named('read')} TO ${to}`,
    `GRANT EXECUTE ON FUNCTION ${POSTGRES_SCHEMA.gatewayExecutes.join(', ')} TO ${to}`,
  ].join(';\n');
}
