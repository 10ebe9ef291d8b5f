import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { printGatewaySchema } from '../../src/graphql/schema/gateway.schema';

describe('schema.graphql', () => {
  it('is exactly what the type-graphql classes generate (run `npm run schema` after changing them)', () => {
    const committed = readFileSync(join(__dirname, '..', '..', 'schema.graphql'), 'utf8');
    expect(committed).toBe(printGatewaySchema());
  });
});
