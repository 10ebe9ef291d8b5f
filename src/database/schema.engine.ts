import { DeclaredTable, DeclaredTrigger } from './schema.declared';

/** Where engines differ inside DDL that is written once: the names of types and a few expressions. */
export interface SchemaDialect {
  /** The text of keys and ids, compared byte by byte. */
  text: string;
  bigint: string;
  real: string;
  /** An expression for a random hex id. */
  randomId: string;
}

/**
 * One schema version. Its shared DDL is written once for every engine; what only some engines run
 * (triggers, functions, grants, storage settings) lives with the engine (sqlite.migrations.ts,
 * postgres.migrations.ts). A migration is never edited once released: a change is a new version.
 */
export interface Migration {
  version: number;
  name: string;
  shared(dialect: SchemaDialect): string;
}

/**
 * One engine's part of the schema: its dialect, the statements only it runs (by version, after
 * that version's shared DDL), and what those add to the declared schema. A further engine is one
 * more value of this type, in a file of its own.
 */
export interface EngineSchema {
  dialect: SchemaDialect;
  only: Readonly<Partial<Record<number, string>>>;
  tables: readonly DeclaredTable[];
  triggers: readonly DeclaredTrigger[];
  functions: readonly string[];
  /** The functions the gateway's own role may call, where another role owns the schema (postgres.grants.ts). */
  gatewayExecutes: readonly string[];
}

/** The text a migration runs on an engine. */
export function migrationText(migration: Migration, engine: EngineSchema): string {
  return migration.shared(engine.dialect) + (engine.only[migration.version] ?? '');
}
