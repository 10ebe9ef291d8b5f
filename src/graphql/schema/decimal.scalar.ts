import { GraphQLError, GraphQLScalarType, Kind } from 'graphql';

const SIGNED_DECIMAL = /^-?\d+(\.\d+)?$/;

/** Exactly the digits: no surrounding space, newline or byte-order mark is quietly dropped. */
function parse(raw: string): string {
  if (!SIGNED_DECIMAL.test(raw))
    throw new GraphQLError(
      `Decimal cannot represent ${JSON.stringify(raw.slice(0, 40))}: expected a number such as "150.75"`,
    );
  return raw;
}

/**
 * Money amounts as decimal text. Output is a string ("150.75"); input is a string or a JSON number.
 * Literal numbers are read from the query text itself, so they never pass through a float.
 */
export const DecimalScalar = new GraphQLScalarType<string, string>({
  name: 'Decimal',
  description: 'A decimal amount as a string, e.g. "150.75". Input also accepts a number.',
  serialize(value) {
    if (typeof value === 'string') return value;
    throw new GraphQLError('Decimal can only serialize strings');
  },
  parseValue(value) {
    if (typeof value === 'string') return parse(value);
    if (typeof value === 'number' && Number.isFinite(value)) return parse(String(value));
    throw new GraphQLError('Decimal must be a string or a number');
  },
  parseLiteral(ast) {
    if (ast.kind === Kind.STRING || ast.kind === Kind.INT || ast.kind === Kind.FLOAT) return parse(ast.value);
    throw new GraphQLError('Decimal must be a string or a number');
  },
});
