import Database from 'better-sqlite3';
import { renameSync } from 'node:fs';
import { launchGateway, runToExit } from '../support/process';
import { sharedProvider } from '../support/replicas';
import { CREATE_MOBILE, gql, knownSecrets, mobileInput } from '../support/stack';
import { sqliteFile } from '../support/sqlite.engine';

/**
 * A copy of the embedded file renamed over the live one (the flock on the file stays with the old
 * inode): the running gateway stops writing to the file it lost and /readyz says why, and a second
 * gateway on the same path refuses to start, so two gateways never write one path.
 */
const TOKEN = 'tok_replaced_client_0123456789abcdef';
knownSecrets.add(TOKEN);
const AS_CLIENT = { authorization: `Bearer ${TOKEN}` };

type Answer = {
  data?: { createMobileMoneyDisbursement?: { status: string } | null } | null;
  errors?: { extensions?: { code?: string } }[];
};

it('a copy renamed over the live file: the running gateway writes nothing more, a second one refuses to start', async () => {
  const file = sqliteFile();
  const provider = await sharedProvider({ DATABASE_URL: file.url }, { settleMs: 200, callbackRetryBaseMs: 50 });
  const env = { ...provider.env, PORT: '0', CLIENT_TOKENS: TOKEN, CLIENT_RATE_LIMIT_PER_MIN: '0' };
  const gateway = await launchGateway(env);
  try {
    const create = async (input: Record<string, unknown>) => {
      const a = (await gql(gateway.graphqlUrl, CREATE_MOBILE, { input }, AS_CLIENT)) as Answer;
      return a.errors?.[0]?.extensions?.code ?? a.data?.createMobileMoneyDisbursement?.status;
    };
    expect(await create(mobileInput())).toBe('PENDING');
    const copy = `${file.path}.copy`;
    const source = new Database(file.path, { readonly: true, fileMustExist: true });
    try {
      await source.backup(copy);
    } finally {
      source.close();
    }
    renameSync(copy, file.path);

    const second = runToExit({ ...env, PORT: '0' });
    expect(second.status).not.toBe(0);
    expect(second.stderr).toContain('in use by another process');

    const after = mobileInput();
    expect(await create(after)).toBe('SERVICE_UNAVAILABLE');
    expect(provider.sandbox.stats().createRequestsByReferenceId[after.referenceId as string]).toBeUndefined();
    const ready = await fetch(`${gateway.url}/readyz`);
    expect(ready.status).toBe(503);
    expect(((await ready.json()) as { problem?: string }).problem).toContain('was replaced by another file');
  } finally {
    expect(await gateway.stop()).toBe(0);
    await provider.sandbox.close();
    file.remove();
  }
}, 60_000);
