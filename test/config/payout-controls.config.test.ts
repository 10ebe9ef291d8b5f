import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/config';
import { MerchantRegistry } from '../../src/auth/merchant.registry';
import { runToExit } from '../support/process';

describe('a malformed controls object stops startup with one line naming the merchant and the key', () => {
  it.each([
    ['not JSON', '{approvalAbove', /PAYOUT_CONTROLS: merchant "default" controls are not JSON/],
    [
      'an amount that is a number',
      '{"approvalAbove": {"ZMW": 5000}}',
      /merchant "default" controls key approvalAbove\.ZMW/,
    ],
    [
      'three decimals',
      '{"dailyLimit": {"ZMW": "1.005"}}',
      /merchant "default" controls key dailyLimit\.ZMW must be a decimal/,
    ],
    [
      'a lowercase currency',
      '{"maxAmount": {"zmw": "10"}}',
      /merchant "default" controls key maxAmount\.zmw is not a currency/,
    ],
    [
      'an unknown key',
      '{"dailyLimits": {"ZMW": "10"}}',
      /merchant "default" controls key dailyLimits is not a control/,
    ],
    [
      'a zero TTL',
      '{"approvalTtlSeconds": 0}',
      /merchant "default" controls key approvalTtlSeconds must be at least 1/,
    ],
    [
      'beneficiaryApproval as text',
      '{"beneficiaryApproval": "yes"}',
      /merchant "default" controls key beneficiaryApproval must be true or false/,
    ],
    [
      'a negative newPayeeHoldSeconds',
      '{"newPayeeHoldSeconds": -1}',
      /merchant "default" controls key newPayeeHoldSeconds must be at least 0/,
    ],
  ])('PAYOUT_CONTROLS with %s', (_name, controls, message) => {
    const { status, stderr } = runToExit({ PAYOUT_CONTROLS: controls });
    expect(status).toBe(1);
    expect(stderr.trim().split('\n')).toHaveLength(1);
    expect(stderr).toMatch(message);
  });

  it('a MERCHANTS_FILE entry with bad controls names that merchant', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'controls-')), 'merchants.json');
    const token = 'a-client-token-0123456789';
    writeFileSync(
      file,
      JSON.stringify([
        {
          id: 'acme',
          apiKey: 'sandbox-key',
          clientTokens: [{ token, name: 'ops' }],
          controls: { userDailyLimit: { ZMW: '-1' } },
        },
      ]),
    );
    const { status, stderr } = runToExit({ MERCHANTS_FILE: file });
    expect(status).toBe(1);
    expect(stderr.trim().split('\n')).toHaveLength(1);
    expect(stderr).toMatch(/MERCHANTS_FILE: merchant "acme" controls key userDailyLimit\.ZMW/);
    expect(stderr).not.toContain(token);
  });

  it('PAYOUT_DAY_TIMEZONE must be an IANA zone', () => {
    const { status, stderr } = runToExit({ PAYOUT_DAY_TIMEZONE: 'Mars/Olympus' });
    expect(status).toBe(1);
    expect(stderr).toMatch(/PAYOUT_DAY_TIMEZONE/);
  });
});

describe('well-formed controls', () => {
  it('reach the single merchant, every key optional, with the default TTL of a day', () => {
    const config = loadConfig({
      PAYOUT_CONTROLS: '{"approvalAbove": {"ZMW": "5000.50"}}',
      PAYOUT_DAY_TIMEZONE: 'Africa/Lusaka',
    });
    expect(config.payoutDayTimeZone).toBe('Africa/Lusaka');
    expect(MerchantRegistry.fromConfig(config, true).byId('default')?.controls).toEqual({
      approvalAbove: { ZMW: '5000.5' },
      approvalTtlSeconds: 86_400,
    });
  });

  it('give each shared token its name as the actor, or its position, and never the token', () => {
    const registry = MerchantRegistry.fromConfig(
      loadConfig({ CLIENT_TOKENS: 'first-token-0123456789,second-token-0123456789' }),
      true,
    );
    const first = registry.identify('Bearer first-token-0123456789');
    const second = registry.identify('Bearer second-token-0123456789');
    expect([first?.actor.name, second?.actor.name]).toEqual(['token-1', 'token-2']);
    expect(first?.actor.id).not.toEqual(second?.actor.id);
    expect(JSON.stringify([first?.actor, second?.actor])).not.toMatch(/first-token|second-token/);
  });
});
