import { basename, dirname, extname, join, resolve } from 'node:path';

/** Where the system of record lives: an embedded SQLite file (one process) or a PostgreSQL database (replicas). */
export type DatabaseTarget = SqliteTarget | PostgresTarget;
export type SqliteTarget = { engine: 'sqlite'; path: string };
export type PostgresTarget = { engine: 'postgres'; url: string };

/** Engines by name: the one place a target's engine is told apart. */
export type Engine = DatabaseTarget['engine'];

/**
 * What `choices` says for the target's engine. Every engine choice outside the store goes through
 * this (or a Record keyed by Engine or Dialect), so a third engine does not compile until each says
 * what it does.
 */
export function onEngine<T>(
  target: DatabaseTarget,
  choices: { sqlite: (target: SqliteTarget) => T; postgres: (target: PostgresTarget) => T },
): T {
  switch (target.engine) {
    case 'sqlite':
      return choices.sqlite(target);
    case 'postgres':
      return choices.postgres(target);
  }
}

/** The embedded file when DATABASE_URL is unset: inside the working folder, ignored by git. */
export const DEFAULT_SQLITE_PATH = '.data/gateway.sqlite';

/**
 * DATABASE_URL as a target, or undefined when it is neither `postgres://…` (`postgresql://…`) nor
 * `sqlite:<path>`. The caller names the setting in its error, never the value: it may hold a password.
 */
export function databaseTarget(url: string | undefined): DatabaseTarget | undefined {
  if (url === undefined) return { engine: 'sqlite', path: resolve(DEFAULT_SQLITE_PATH) };
  if (url.startsWith('sqlite:')) {
    const path = url.slice('sqlite:'.length).replace(/^\/\/(?=\/)/, '');
    return path.length > 0 ? { engine: 'sqlite', path: resolve(path) } : undefined;
  }
  if (!/^postgres(ql)?:\/\//.test(url) || !URL.canParse(url)) return undefined;
  const parsed = new URL(url);
  return parsed.hostname || parsed.searchParams.has('host') ? { engine: 'postgres', url } : undefined;
}

/** The target as a log line may show it: the file, or the server and database without user or password. */
export function shownTarget(target: DatabaseTarget): string {
  return onEngine(target, {
    sqlite: ({ path }) => `SQLite file ${path}`,
    postgres: ({ url }) => {
      const parsed = new URL(url);
      return `PostgreSQL at ${parsed.hostname}${parsed.port ? `:${parsed.port}` : ''}${parsed.pathname}`;
    },
  });
}

/** The password of a PostgreSQL URL, so the gateway's secret scrubbing can remove it wherever it might appear. */
export function databasePassword(target: DatabaseTarget): string | undefined {
  return onEngine<string | undefined>(target, {
    sqlite: () => undefined,
    postgres: ({ url }) => {
      const password = new URL(url).password;
      return password ? decodeURIComponent(password) : undefined;
    },
  });
}

/**
 * Where the gateway keeps its signed audit checkpoints by default, outside the database: beside the
 * embedded file, named after it; for PostgreSQL, in the working folder's `.data/`, named after the
 * server and database. One file per database, so two databases never share one.
 */
export function defaultCheckpointFile(target: DatabaseTarget): string {
  return onEngine(target, {
    sqlite: ({ path }) => join(dirname(path), `${basename(path, extname(path))}.audit-checkpoints.jsonl`),
    postgres: ({ url }) => {
      const parsed = new URL(url);
      const name = [
        parsed.hostname || parsed.searchParams.get('host') || 'local',
        parsed.port || '5432',
        parsed.pathname.slice(1),
      ]
        .join('-')
        .replace(/[^A-Za-z0-9._-]/g, '_');
      return resolve('.data', `audit-checkpoints-${name}.jsonl`);
    },
  });
}
