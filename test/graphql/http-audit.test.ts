import { serverAudits } from 'graphql-http';
import { knownSecrets, Stack, startStack } from '../support/stack';

const TOKEN = 'tok_http_audit_0123456789abcdef';

let stack: Stack;
beforeAll(async () => {
  knownSecrets.add(TOKEN);
  stack = await startStack({ env: { CLIENT_TOKENS: TOKEN } });
});
afterAll(() => stack.close());

/** graphql-http's audit, every request carrying the client's token (the endpoint answers nothing without one). */
const audits = () =>
  serverAudits({
    url: () => stack.graphqlUrl,
    fetchFn: (input: RequestInfo | URL, init?: RequestInit) => {
      const headers = new Headers(init?.headers);
      headers.set('authorization', `Bearer ${TOKEN}`);
      return fetch(input, { ...init, headers });
    },
  });

describe('GraphQL over HTTP: graphql-http server audit', () => {
  // The MAYs are choices: GETs need Apollo's CSRF preflight header here, which the audit does not send.
  const required = audits().filter((audit) => /^(MUST|SHOULD) /.test(audit.name));
  it('audits every MUST and SHOULD', () => expect(required.length).toBeGreaterThan(25));
  it.each(required.map((audit) => [audit.name, audit] as const))('%s', async (_name, audit) => {
    const result = await audit.fn();
    expect({ status: result.status, reason: 'reason' in result ? result.reason : undefined }).toEqual({
      status: 'ok',
      reason: undefined,
    });
  });
});
