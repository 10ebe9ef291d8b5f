import { createHash } from 'node:crypto';

/**
 * The one way SQL takes values: a tagged template. `sql\`... ${value} ...\`` keeps the text's pieces and
 * the values apart, and each engine compiles that structure once per call into its own placeholders:
 * `?` for SQLite, `$1, $2, ...` for PostgreSQL. Finished SQL is never rewritten, so an operator that
 * looks like a placeholder (jsonb's `?`) stays what it is. A value that is itself an Sql is spliced in
 * with its own values; `raw` is text chosen by the code, never by input.
 */
export class Sql {
  constructor(
    readonly strings: readonly string[],
    readonly values: readonly unknown[],
  ) {}
}

export function sql(strings: TemplateStringsArray, ...values: unknown[]): Sql {
  // No fragment among the values: the call site's own strings array is the shape, the same object on
  // every call, so compile() finds its text already built.
  if (!values.some((value) => value instanceof Sql)) return new Sql(strings, values);
  const pieces: string[] = [strings[0]];
  const flat: unknown[] = [];
  values.forEach((value, i) => {
    if (value instanceof Sql) {
      // The fragment's first piece joins the text before it, its last the text after it.
      pieces[pieces.length - 1] += value.strings[0];
      for (let j = 0; j < value.values.length; j += 1) {
        flat.push(value.values[j]);
        pieces.push(value.strings[j + 1]);
      }
      pieces[pieces.length - 1] += strings[i + 1];
    } else {
      flat.push(value);
      pieces.push(strings[i + 1]);
    }
  });
  return new Sql(pieces, flat);
}

/**
 * A statement whose shape is fixed once (`sql` of placeholder values, compiled here): each use gives
 * only its values, so a write on the hot path builds neither fragments nor text.
 */
export function shape(template: Sql): (values: readonly unknown[]) => Sql {
  const strings = Object.freeze([...template.strings]);
  return (values) => new Sql(strings, values);
}

/** Values as a comma-separated list of placeholders, for IN (...) or VALUES (...). */
export const listOf = (values: readonly unknown[]): Sql => join(values.map((value) => sql`${value}`));

/** `count` placeholders, for a `shape`'s template: each use gives their values. */
export const placeholders = (count: number): Sql => listOf(new Array<null>(count).fill(null));

/** Text the code chose (a column list, a fixed clause), spliced in as it is. */
export const raw = (text: string): Sql => new Sql([text], []);

/** The parts with `separator` between them. */
export function join(parts: readonly Sql[], separator = ', '): Sql {
  if (parts.length === 0) return raw('');
  // Each part's pieces and values appended once: a write's column list is joined on every write.
  const strings = [...parts[0].strings];
  const values = [...parts[0].values];
  for (let i = 1; i < parts.length; i += 1) {
    const part = parts[i];
    strings[strings.length - 1] += separator + part.strings[0];
    for (let j = 0; j < part.values.length; j += 1) {
      values.push(part.values[j]);
      strings.push(part.strings[j + 1]);
    }
  }
  return new Sql(strings, values);
}

/** A statement as an engine sends it. */
export interface Compiled {
  text: string;
  values: unknown[];
}

export type Dialect = 'sqlite' | 'postgres';

/**
 * Prepared names made so far, by label, then by text (the text a shape keeps is one string, whose hash
 * V8 keeps: a lookup neither joins nor rehashes 1 KB per round trip). Bounded by the shapes the
 * gateway has.
 */
const NAMES = new Map<string, Map<string, string>>();
let named = 0;
/** Past this many, a text is no fixed shape: named anew each time rather than kept. */
const NAMES_LIMIT = 1024;

/**
 * The prepared-statement name of a statement's text: its label (what it is, for people reading
 * pg_stat_statements) and 64 bits of the text's SHA-256. Derived from the text itself, so a variant
 * that changes the text gets its own name: no name ever stands for two texts (which node-postgres
 * refuses only at run time). Under PostgreSQL's 63-byte limit for any label up to 40 characters.
 */
export function preparedName(label: string, text: string): string {
  let byText = NAMES.get(label);
  let name = byText?.get(text);
  if (name === undefined) {
    name = `${label}-${createHash('sha256').update(text).digest('hex').slice(0, 16)}`;
    if (named < NAMES_LIMIT) {
      if (!byText) NAMES.set(label, (byText = new Map<string, string>()));
      byText.set(text, name);
      named += 1;
    }
  }
  return name;
}

/**
 * Each fixed shape's text per engine, built once. A shape's strings array is frozen (a call site's
 * template strings, or a `shape`'s); one spliced together for a single statement is not, and is not kept.
 */
const TEXTS = new WeakMap<readonly string[], Partial<Record<Dialect, string>>>();

/** Each engine's placeholder for the i-th value (from 1): a new dialect does not compile until it has one. */
const PLACEHOLDER: Readonly<Record<Dialect, (i: number) => string>> = {
  sqlite: () => '?',
  postgres: (i) => `$${i}`,
};

function textOf(strings: readonly string[], dialect: Dialect): string {
  const placeholder = PLACEHOLDER[dialect];
  let text = strings[0];
  for (let i = 1; i < strings.length; i += 1) text += placeholder(i) + strings[i];
  return text;
}

export function compile(statement: Sql, dialect: Dialect): Compiled {
  const { strings, values } = statement;
  if (!Object.isFrozen(strings)) return { text: textOf(strings, dialect), values: [...values] };
  let texts = TEXTS.get(strings);
  if (!texts) {
    texts = {};
    TEXTS.set(strings, texts);
  }
  let text = texts[dialect];
  if (text === undefined) {
    text = textOf(strings, dialect);
    texts[dialect] = text;
  }
  return { text, values: [...values] };
}
