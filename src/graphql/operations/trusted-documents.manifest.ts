import { getOperationAST, parse } from 'graphql';
import { readFileSync } from 'node:fs';
import { ConfigError } from '../../config';

/** One trusted operation: the id clients send for it, its exact text, and its operation's name. */
export interface TrustedOperation {
  id: string;
  body: string;
  name?: string;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function nameOf(body: string): string | undefined {
  try {
    return getOperationAST(parse(body, { noLocation: true }))?.name?.value;
  } catch {
    return undefined;
  }
}

/**
 * A trusted documents manifest in either format clients' build tools write:
 * - Apollo's persisted query manifest (`@apollo/generate-persisted-query-manifest`):
 *   `{"format": "apollo-persisted-query-manifest", "version": 1, "operations": [{id, name, type, body}]}`;
 * - GraphQL Code Generator's `persisted-documents.json` (client preset): `{"<id>": "<body>"}`.
 * Throws an Error saying what is wrong.
 */
export function parseManifest(json: unknown): TrustedOperation[] {
  if (!isObject(json)) throw new Error('not a JSON object');
  if (json.format !== undefined) {
    if (json.format !== 'apollo-persisted-query-manifest' || json.version !== 1 || !Array.isArray(json.operations)) {
      throw new Error(
        'an Apollo manifest needs format "apollo-persisted-query-manifest", version 1 and an operations list',
      );
    }
    return json.operations.map((operation: unknown, index) => {
      if (!isObject(operation) || typeof operation.id !== 'string' || typeof operation.body !== 'string') {
        throw new Error(`operations[${index}] needs a string id and body`);
      }
      return {
        id: operation.id,
        body: operation.body,
        name: typeof operation.name === 'string' ? operation.name : nameOf(operation.body),
      };
    });
  }
  return Object.entries(json).map(([id, body]) => {
    if (typeof body !== 'string') throw new Error(`the document of id ${id.slice(0, 80)} is not a string`);
    return { id, body, name: nameOf(body) };
  });
}

/** TRUSTED_DOCUMENTS read at startup; a file that cannot be used stops it with one line naming the setting. */
export function loadManifest(path: string): TrustedOperation[] {
  let operations: TrustedOperation[];
  try {
    operations = parseManifest(JSON.parse(readFileSync(path, 'utf8')));
  } catch (error) {
    throw new ConfigError(`Invalid setting TRUSTED_DOCUMENTS: ${path}: ${(error as Error).message.split('\n')[0]}`);
  }
  if (operations.length === 0) throw new ConfigError(`Invalid setting TRUSTED_DOCUMENTS: ${path} lists no operation`);
  return operations;
}
