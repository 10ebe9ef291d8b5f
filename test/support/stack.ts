import { randomBytes, randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import { Gateway, startApp } from '../../src/app';
import { MerchantRegistry } from '../../src/auth/merchant.registry';
import { Config, ConfigError, loadConfig } from '../../src/config';
import { SandboxHandle, SandboxOptions, startSandbox } from '../../src/sandbox/sandbox.server';
import { sqliteFile } from './sqlite.engine';

/** Every log line any stack wrote in this test file, for leak checks. */
export const capturedLogs: string[] = [];

/**
 * Every secret a gateway in this file held (src/config.secrets.ts: what its settings and merchants hold, and what it
 * made at start), and any a test adds; none may ever leave.
 */
export const knownSecrets = new Set<string>();

/**
 * What a gateway started with `env` holds by its settings and its merchants, as the declaration of secrets lists it;
 * none for settings the gateway refuses to start with (a test of that refusal).
 */
export function secretsOf(env: Record<string, string>): string[] {
  let config: Config;
  try {
    config = loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return [];
    throw error;
  }
  return [...config.secrets, ...MerchantRegistry.fromConfig(config, true).secrets()];
}

export interface Stack {
  sandbox: SandboxHandle;
  gateway: Gateway;
  /** The gateway's GraphQL address. */
  graphqlUrl: string;
  webhookSecret: string;
  close(): Promise<void>;
}

export interface StackOptions {
  /** Extra gateway environment (the names in docs/configuration.md). */
  env?: Record<string, string>;
  sandbox?: Partial<SandboxOptions>;
  /** Merchant key the gateway sends; default the sandbox's active key. */
  merchantApiKey?: string;
  /** How long creates in flight may finish at close before they are answered OUTCOME_UNKNOWN. */
  createGraceMs?: number;
}

/**
 * A real embedded sandbox and a real gateway pointed at it over HTTP, both on free ports. Without a
 * DATABASE_URL in `env`, the gateway gets an embedded file of its own, removed at close.
 */
export async function startStack(opts: StackOptions = {}): Promise<Stack> {
  const own = opts.env?.DATABASE_URL === undefined ? sqliteFile() : undefined;
  const webhookSecret = `whsec_${randomBytes(24).toString('base64')}`;
  const sandbox = await startSandbox({
    port: 0,
    // Long enough that a watcher subscribing right after a create still sees PENDING first, even on a loaded machine.
    settleMs: 400,
    rateLimitPerMin: 0,
    webhookSecret,
    callbackRetryBaseMs: 50,
    ...opts.sandbox,
  });
  const config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    UPSTREAM_BASE_URL: sandbox.url,
    MERCHANT_API_KEY: opts.merchantApiKey ?? 'sandbox-key',
    WEBHOOK_SECRET: webhookSecret,
    UPSTREAM_TIMEOUT_MS: '3000',
    CLIENT_RATE_LIMIT_PER_MIN: '0',
    // A sandbox without a rate limit stands for a provider without one: no provider budget either.
    ...(opts.sandbox?.rateLimitPerMin ? {} : { UPSTREAM_RATE_LIMIT_PER_MIN: '0' }),
    LOG_LEVEL: 'info',
    ...(own && { DATABASE_URL: own.url }),
    ...opts.env,
  });
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      capturedLogs.push(chunk.toString());
      done();
    },
  });
  let gateway: Gateway;
  try {
    ({ gateway } = await startApp({
      config,
      logDestination: sink,
      trustedProvider: true,
      createGraceMs: opts.createGraceMs,
    }));
  } catch (error) {
    await sandbox.close();
    own?.remove();
    throw error;
  }
  for (const secret of gateway.secrets) knownSecrets.add(secret);
  return {
    sandbox,
    gateway,
    graphqlUrl: `${gateway.url}/graphql`,
    webhookSecret,
    async close() {
      await gateway.close();
      await sandbox.close();
      own?.remove();
    },
  };
}

export const uniqueRef = (prefix = 'ref') => `${prefix}-${randomUUID()}`;

export interface GraphQLResponse<T = Record<string, unknown>> {
  status: number;
  data?: T | null;
  errors?: { message: string; path?: string[]; extensions?: Record<string, unknown> }[];
  /** The raw text, for leak checks. */
  text: string;
}

/** Every response body the suite saw, for leak checks. */
export const capturedResponses: string[] = [];

export async function gql<T = Record<string, unknown>>(
  url: string,
  query: string,
  variables: Record<string, unknown> = {},
  headers: Record<string, string> = {},
): Promise<GraphQLResponse<T>> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ query, variables }),
  });
  const text = await res.text();
  capturedResponses.push(text);
  const parsed = JSON.parse(text) as Omit<GraphQLResponse<T>, 'status' | 'text'>;
  return { status: res.status, text, ...parsed };
}

export const DISBURSEMENT_FIELDS = `
  referenceId identifier channel paymentType providerPaymentType status providerStatus message
  amount currency accountNumber narration externalId ipAddress createdAt updatedAt
  history { status providerStatus message source at }
`;

export const CREATE_MOBILE = `mutation Create($input: MobileMoneyDisbursementInput!) {
  createMobileMoneyDisbursement(input: $input) { ${DISBURSEMENT_FIELDS} }
}`;

export const CREATE_BANK = `mutation CreateBank($input: BankDisbursementInput!) {
  createBankDisbursement(input: $input) { ${DISBURSEMENT_FIELDS} }
}`;

export function mobileInput(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    referenceId: uniqueRef('mm'),
    amount: '150.75',
    accountNumber: '260971234567',
    currency: 'ZMW',
    narration: 'Test payout',
    ...overrides,
  };
}

export function bankInput(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    referenceId: uniqueRef('bank'),
    amount: '2500.50',
    currency: 'ZMW',
    narration: 'Supplier invoice 42',
    accountNumber: '0012345678',
    swiftCode: 'ZNCOZMLU',
    firstName: 'Mwila',
    lastName: 'Banda',
    accountHolderName: 'Mwila Banda',
    phoneNumber: '260971234567',
    email: 'mwila@example.com',
    ...overrides,
  };
}

/** A provider-shaped callback body (the flat record the provider POSTs), for a mobile money payout. */
export function callbackBody(
  referenceId: string,
  status: string,
  overrides: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    referenceId,
    currency: 'ZMW',
    amount: 150.75,
    accountNumber: '260971234222',
    status,
    paymentType: 'OperatorAMoney',
    type: 'Disbursement',
    ipAddress: '127.0.0.1',
    identifier: 'MM-1-2',
    message: null,
    externalId: null,
    ...overrides,
  };
}

/**
 * Waits until the gateway (in this process, or a launched one) reports at least `count` live
 * subscriptions (its own metric), so a test creates only once watchers listen.
 */
export async function subscriptionsLive(target: Stack | { url: string }, count: number): Promise<void> {
  const url = 'gateway' in target ? target.gateway.url : target.url;
  await eventually(async () => {
    const text = await (await fetch(`${url}/metrics`)).text();
    const live = Number(/^gateway_subscriptions_active (\d+)/m.exec(text)?.[1] ?? 0);
    return live >= count ? true : undefined;
  });
}

/** Polls until `check` returns a value, for states reached asynchronously (callbacks). */
export async function eventually<T>(
  check: () => Promise<T | undefined> | T | undefined,
  attempts = 100,
  everyMs = 50,
): Promise<T> {
  for (let i = 0; i < attempts; i += 1) {
    const value = await check();
    if (value !== undefined) return value;
    await new Promise((r) => setTimeout(r, everyMs));
  }
  throw new Error('condition not reached');
}
