import { Client } from 'graphql-ws';
import { Gateway, startApp } from '../../src/app';
import { loadConfig } from '../../src/config';
import { SandboxHandle } from '../../src/sandbox/sandbox.server';
import { describeEachEngine } from '../support/modes';
import { sharedProvider } from '../support/replicas';
import { CREATE_MOBILE, DISBURSEMENT_FIELDS, gql, mobileInput } from '../support/stack';
import { subscribe, wsClient } from '../support/ws';
import { PayoutRow, WATCH } from '../support/fixtures';

const QUERY = `query One($referenceId: ID!) { disbursement(referenceId: $referenceId) { ${DISBURSEMENT_FIELDS} } }`;

/** Two gateways behind one (imagined) load balancer: one sandbox, one database. */
describeEachEngine(
  'two gateway replicas sharing one database',
  (databaseEnv) => {
    let sandbox: SandboxHandle;
    let a: Gateway;
    let b: Gateway;
    let onB: Client;

    beforeAll(async () => {
      const shared = await sharedProvider(databaseEnv(), { settleMs: 300, callbackRetryBaseMs: 50 });
      sandbox = shared.sandbox;
      const env = { ...shared.env, PORT: '0', LOG_LEVEL: 'silent' };
      const config = loadConfig(env);
      a = (await startApp({ config, trustedProvider: true })).gateway;
      b = (await startApp({ config, trustedProvider: true })).gateway;
      onB = wsClient(`${b.url}/graphql`);
    });

    afterAll(async () => {
      await onB.dispose();
      await Promise.all([a.close(), b.close()]);
      await sandbox.close();
    });

    it('follows on B a payout created on A to the status of the callback A received', async () => {
      const input = mobileInput();
      const created = await gql<{ createMobileMoneyDisbursement: PayoutRow }>(`${a.url}/graphql`, CREATE_MOBILE, {
        input,
      });
      expect(created.errors).toBeUndefined();
      const sub = subscribe<{ disbursementUpdated: PayoutRow }>(onB, WATCH, { referenceId: input.referenceId });
      await sub.completed;
      expect(sub.errors).toEqual([]);
      expect(sub.events.map((e) => e.disbursementUpdated.status)).toEqual(['PENDING', 'SUCCESSFUL']);
    });

    it('answers a retry sent to B with the record A created, without a second provider call', async () => {
      const input = mobileInput({ accountNumber: '260971234222' });
      const first = await gql<{ createMobileMoneyDisbursement: PayoutRow }>(`${a.url}/graphql`, CREATE_MOBILE, {
        input,
      });
      const retry = await gql<{ createMobileMoneyDisbursement: PayoutRow }>(`${b.url}/graphql`, CREATE_MOBILE, {
        input,
      });
      expect(retry.errors).toBeUndefined();
      expect(retry.data?.createMobileMoneyDisbursement.identifier).toBe(
        first.data?.createMobileMoneyDisbursement.identifier,
      );
      expect(sandbox.stats().createRequestsByReferenceId[input.referenceId as string]).toBe(1);
      const read = await gql<{ disbursement: PayoutRow }>(`${b.url}/graphql`, QUERY, {
        referenceId: input.referenceId,
      });
      expect(read.data?.disbursement.status).toBe('PENDING');
    });

    it('refuses on B the referenceId A used for another request', async () => {
      const input = mobileInput({ accountNumber: '260971234222' });
      await gql(`${a.url}/graphql`, CREATE_MOBILE, { input });
      const other = await gql(`${b.url}/graphql`, CREATE_MOBILE, { input: { ...input, amount: '99.00' } });
      expect(other.errors?.[0]?.extensions?.code).toBe('REFERENCE_CONFLICT');
    });
  },
  { needs: ['replicas'] },
);
