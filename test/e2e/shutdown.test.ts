import { launchGateway } from '../support/process';
import { CREATE_MOBILE, gql, mobileInput } from '../support/stack';

describe('SIGTERM while a create is still at the provider', () => {
  it('answers it OUTCOME_UNKNOWN and exits 0', async () => {
    // The sandbox holds a create for an account ending 408 for 30 s; the gateway would wait 60 s.
    const run = await launchGateway({
      PORT: '0',
      SANDBOX_PORT: '0',
      UPSTREAM_TIMEOUT_MS: '60000',
      SANDBOX_SETTLE_MS: '600000',
    });
    const answer = gql(run.graphqlUrl, CREATE_MOBILE, { input: mobileInput({ accountNumber: '260971234408' }) });
    await new Promise((r) => setTimeout(r, 300));
    const exited = run.stop();
    const res = await answer;
    expect(res.errors?.[0].extensions?.code).toBe('OUTCOME_UNKNOWN');
    expect(await exited).toBe(0);
  }, 60_000);
});
