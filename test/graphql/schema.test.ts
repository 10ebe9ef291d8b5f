import { buildSchema, GraphQLEnumType } from 'graphql';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AuditAction } from '../../src/disbursements/audit.entry';
import { printGatewaySchema } from '../../src/graphql/schema/gateway.schema';

const committed = readFileSync(join(__dirname, '..', '..', 'schema.graphql'), 'utf8');

describe('schema.graphql', () => {
  it('is exactly what the type-graphql classes generate (run `npm run schema` after changing them)', () => {
    expect(committed).toBe(printGatewaySchema());
  });

  it("lists every audit action the domain records in AuditAction's description, and describes each", () => {
    const type = buildSchema(committed).getType('AuditAction') as GraphQLEnumType;
    const actions = Object.keys(AuditAction);
    expect(actions.length).toBeGreaterThanOrEqual(22);
    expect(actions.filter((action) => !new RegExp(`\\b${action}\\b`).test(type.description ?? ''))).toEqual([]);
    expect(
      type
        .getValues()
        .filter((value) => !value.description)
        .map((value) => value.name),
    ).toEqual([]);
  });
});

describe('docs/audit-and-reconciliation.md', () => {
  it("names exactly the domain's audit actions, in its order", () => {
    const page = readFileSync(join(__dirname, '..', '..', 'docs', 'audit-and-reconciliation.md'), 'utf8');
    const table = page.slice(page.indexOf('| action '), page.indexOf('\n\n', page.indexOf('| action ')));
    const named = [...table.matchAll(/^\| `([A-Z_]+)` +\|/gm)].map((m) => m[1]);
    expect(named).toEqual(Object.keys(AuditAction));
  });
});
