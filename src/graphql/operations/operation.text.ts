import { BREAK, DocumentNode, Kind, visit } from 'graphql';
import { badInput, GatewayError } from '../../disbursements/disbursement.errors';

/** No text the gateway takes holds it: PostgreSQL refuses it in text (a 500 deep in a read), and nothing needs it. */
const NUL = '\u0000';

const VALUE_KINDS = new Set<Kind>([
  Kind.VARIABLE,
  Kind.INT,
  Kind.FLOAT,
  Kind.STRING,
  Kind.BOOLEAN,
  Kind.NULL,
  Kind.ENUM,
  Kind.LIST,
  Kind.OBJECT,
]);

/** The path (`input.narration`, `referenceIds.2`) of the first string holding NUL in a variable's value. */
function nulInValue(value: unknown, path: readonly string[]): string | undefined {
  if (typeof value === 'string') return value.includes(NUL) ? path.join('.') : undefined;
  if (value === null || typeof value !== 'object') return undefined;
  const entries = Array.isArray(value) ? value.map((item, i) => [String(i), item] as const) : Object.entries(value);
  for (const [key, item] of entries) {
    const found = nulInValue(item, [...path, key]);
    if (found) return found;
  }
  return undefined;
}

/** Whether any string in a variables object (or any value below it) holds NUL; no allocation on the way. */
function anyNul(value: unknown): boolean {
  if (typeof value === 'string') return value.includes(NUL);
  if (value === null || typeof value !== 'object') return false;
  if (Array.isArray(value)) return value.some(anyNul);
  for (const key in value) if (anyNul((value as Record<string, unknown>)[key])) return true;
  return false;
}

/** Per parsed document (Apollo and the streaming core keep one per query text): does a literal hold NUL? */
const literalNul = new WeakMap<DocumentNode, boolean>();

function hasLiteralNul(document: DocumentNode): boolean {
  let found = literalNul.get(document);
  if (found === undefined) {
    found = false;
    visit(document, {
      StringValue(node) {
        if (!node.value.includes(NUL)) return undefined;
        found = true;
        return BREAK;
      },
    });
    literalNul.set(document, found);
  }
  return found;
}

/**
 * The input path of the first string argument holding a NUL character, written in the document
 * (an escaped `"\u0000"`) or given in a variable: the argument, then its input fields and list
 * indexes, as `extensions.fields` names them elsewhere (`input.referenceId`, `referenceIds.1`); a
 * variable's default is named by the variable.
 */
export function nulArgument(
  document: DocumentNode,
  variables: Readonly<Record<string, unknown>> | null | undefined,
): string | undefined {
  // The common case, no NUL anywhere, costs a walk of the variables and a cached lookup; only a hit is located.
  if (!hasLiteralNul(document) && !anyNul(variables)) return undefined;
  const path: string[] = [];
  let found: string | undefined;
  /** How many names each node pushed, popped as it is left. */
  const pushed = new Map<object, number>();
  visit(document, {
    enter(node, key) {
      const names: string[] = [];
      if (node.kind === Kind.ARGUMENT || node.kind === Kind.OBJECT_FIELD) names.push(node.name.value);
      if (node.kind === Kind.VARIABLE_DEFINITION) names.push(node.variable.name.value);
      // A value under a number is an item of a list value.
      if (typeof key === 'number' && VALUE_KINDS.has(node.kind)) names.push(String(key));
      path.push(...names);
      pushed.set(node, names.length);
      if (node.kind === Kind.STRING && node.value.includes(NUL)) found = path.join('.');
      // A variable's own declaration (`$ref: ID!`) holds no value; its uses are where it is named.
      if (node.kind === Kind.VARIABLE && key !== 'variable') found = nulInValue(variables?.[node.name.value], path);
      return found === undefined ? undefined : BREAK;
    },
    leave(node) {
      path.splice(path.length - (pushed.get(node) ?? 0));
    },
  });
  return found;
}

/**
 * Every transport's check, once the operation is parsed and before any resolver runs: an argument
 * holding NUL is BAD_USER_INPUT naming it, so nothing is read or changed.
 */
export function nulRefusal(
  document: DocumentNode,
  variables: Readonly<Record<string, unknown>> | null | undefined,
): GatewayError | undefined {
  const field = nulArgument(document, variables);
  return field === undefined
    ? undefined
    : badInput(`${field} holds a NUL character (\\u0000), which no argument accepts; nothing was read or changed`, [
        field,
      ]);
}
