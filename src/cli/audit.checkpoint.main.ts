import '../node.supported';
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from '../config';
import { checkpointLine } from '../audit/audit.checkpoint-file';
import { INTACT, runCli, UsageError, withAuditLog } from './audit.cli';

const USAGE = 'usage: npm run audit:checkpoint [-- --merchant ID] > checkpoints.jsonl   (reads DATABASE_URL)';

/**
 * `npm run audit:checkpoint`: every signed checkpoint the database keeps, merchant by merchant, oldest
 * first, one JSON object a line on standard output, for someone other than the database's keepers to
 * keep (`audit:verify --checkpoints FILE` checks a rewrite against them). Reads only; needs no key.
 */
async function main(): Promise<number> {
  const { values } = parseArgs({ options: { merchant: { type: 'string' }, help: { type: 'boolean' } } });
  if (values.help) {
    console.log(USAGE);
    return INTACT;
  }
  if (values.merchant === '') throw new UsageError(`--merchant needs an id. ${USAGE}`);
  const config = loadConfig(process.env);
  return withAuditLog(config, async (reader) => {
    const only = values.merchant;
    let merchantId = only ?? (await reader.merchantAfter(undefined));
    while (merchantId !== undefined) {
      for (const c of await reader.checkpoints(merchantId)) process.stdout.write(checkpointLine(c));
      merchantId = only === undefined ? await reader.merchantAfter(merchantId) : undefined;
    }
    return INTACT;
  });
}

runCli(main, (error) => error instanceof ConfigError || error instanceof TypeError);
