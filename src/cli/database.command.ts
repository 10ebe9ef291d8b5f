import { SECRETS } from '../config.secrets';
import { databaseTarget, DatabaseTarget, shownTarget } from '../database/database.target';
import { redactSecrets, secretForms } from '../observability/secret.redaction';

/** A mistake in how the command was called, or a refusal: one line, exit 2. */
export class CommandError extends Error {}

/**
 * Runs one of the database commands (db:backup, db:restore, db:restored) on DATABASE_URL, parsed as the
 * gateway parses it: prints what it did, or one line naming the database (never its password) and why
 * not, with exit code 2.
 */
export function runDatabaseCommand(usage: string, work: (target: DatabaseTarget, args: string[]) => Promise<string>) {
  const args = process.argv.slice(2);
  const target = databaseTarget(process.env.DATABASE_URL);
  const execute = async () => {
    if (args.includes('--help')) return usage;
    if (!target) throw new CommandError('Invalid setting DATABASE_URL: must be postgres://... or sqlite:<path>');
    try {
      return await work(target, args);
    } catch (error) {
      if (error instanceof CommandError) throw error;
      const message = error instanceof Error ? error.message : String(error);
      const urls = [process.env.DATABASE_URL, process.env.DATABASE_OWNER_URL];
      const passwords = urls.flatMap((url) => (url ? SECRETS.databasePasswords.forms(url) : []));
      const reason = redactSecrets(message, secretForms(passwords));
      throw new CommandError(`The database of DATABASE_URL (${shownTarget(target)}): ${reason}`);
    }
  };
  execute().then(
    (done) => console.log(done),
    (error: unknown) => {
      console.error(error instanceof CommandError ? error.message : error);
      process.exitCode = 2;
    },
  );
}

/** The one file argument of db:backup and db:restore. */
export function fileArgument(args: string[], usage: string): string {
  const files = args.filter((a) => !a.startsWith('--'));
  if (files.length !== 1) throw new CommandError(usage);
  return files[0];
}
