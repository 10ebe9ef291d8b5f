import '../../node.supported';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { printGatewaySchema } from './gateway.schema';

// `npm run schema`: regenerates the committed schema.graphql from the code.
const target = join(__dirname, '..', '..', '..', 'schema.graphql');
writeFileSync(target, printGatewaySchema());
console.log(`wrote ${target}`);
