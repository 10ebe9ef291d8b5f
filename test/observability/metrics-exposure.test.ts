import { gql, Stack, startStack } from '../support/stack';

describe('/metrics on the API listener', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(() => stack.close());

  it('200 operation names of 2 KB leave /metrics within 20 KB', async () => {
    const before = (await (await fetch(`${stack.gateway.url}/metrics`)).text()).length;
    for (let i = 0; i < 200; i += 1) {
      const name = `Op${i}_${'x'.repeat(2048)}`;
      // A query the token limit still lets through: the name is one token.
      const res = await gql(stack.graphqlUrl, `query ${name} { __typename }`);
      expect(res.errors).toBeUndefined();
    }
    const page = await (await fetch(`${stack.gateway.url}/metrics`)).text();
    expect(page).toContain('operation="other"');
    expect(page).not.toContain('x'.repeat(65));
    expect(page.length - before).toBeLessThan(20 * 1024);
  });
});

describe('METRICS_PORT', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({ env: { METRICS_PORT: '0' } });
  });
  afterAll(() => stack.close());

  it('serves /metrics, /healthz and /readyz on its own listener, and /metrics no longer on the API', async () => {
    const metricsUrl = stack.gateway.metricsUrl;
    expect(metricsUrl).toBeDefined();
    expect(metricsUrl).not.toBe(stack.gateway.url);
    const page = await fetch(`${metricsUrl}/metrics`);
    expect(page.status).toBe(200);
    expect(await page.text()).toMatch(/^gateway_/m);
    expect((await fetch(`${metricsUrl}/healthz`)).status).toBe(200);
    expect((await fetch(`${metricsUrl}/readyz`)).status).toBe(200);
    expect((await fetch(`${metricsUrl}/graphql`)).status).toBe(404);

    const onApi = await fetch(`${stack.gateway.url}/metrics`);
    expect(onApi.status).toBe(404);
    await onApi.text();
    // Load balancers still find health on the API port.
    expect((await fetch(`${stack.gateway.url}/healthz`)).status).toBe(200);
  });
});
