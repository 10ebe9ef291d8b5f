import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { clientKey } from '../../src/auth/client.rate-limit';
import { MerchantRegistry } from '../../src/auth/merchant.registry';
import { ConfigError, loadConfig } from '../../src/config';

function registryFrom(merchants: unknown): MerchantRegistry {
  const file = join(mkdtempSync(join(tmpdir(), 'merchants-')), 'merchants.json');
  writeFileSync(file, JSON.stringify(merchants));
  return MerchantRegistry.fromConfig(
    loadConfig({ MERCHANTS_FILE: file, UPSTREAM_BASE_URL: 'https://provider.invalid' }),
    false,
  );
}

const tokenA = 'tok_merchant_a_0123456789abcdef';
const tokenB = 'tok_merchant_b_0123456789abcdef';

describe('MERCHANTS_FILE', () => {
  it('refuses one client token listed under two merchants, which would let one act as the other', () => {
    expect(() =>
      registryFrom([
        { id: 'a', apiKey: 'key-a', clientTokens: [tokenA] },
        { id: 'b', apiKey: 'key-b', clientTokens: [tokenB, tokenA] },
      ]),
    ).toThrow(new ConfigError('Invalid setting MERCHANTS_FILE: a client token is listed more than once'));
  });

  it('refuses two merchants with one id', () => {
    expect(() =>
      registryFrom([
        { id: 'a', apiKey: 'key-a', clientTokens: [tokenA] },
        { id: 'a', apiKey: 'key-b', clientTokens: [tokenB] },
      ]),
    ).toThrow(new ConfigError('Invalid setting MERCHANTS_FILE: merchant id "a" is listed more than once'));
  });

  it('refuses two merchants with one provider key, naming the merchants and never the key', () => {
    let message = '';
    try {
      registryFrom([
        { id: 'a', apiKey: 'key-shared-secret', clientTokens: [tokenA] },
        { id: 'b', apiKey: 'key-b', clientTokens: [tokenB] },
        { id: 'c', apiKey: 'key-shared-secret', clientTokens: ['tok_merchant_c_0123456789abcdef'] },
      ]);
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      message = (error as Error).message;
    }
    expect(message).toBe(
      'Invalid setting MERCHANTS_FILE: merchants "a" and "c" have the same apiKey; each merchant needs its own',
    );
    expect(message).not.toContain('key-shared-secret');
  });

  it('maps each token to its own merchant and names every credential for redaction', () => {
    const registry = registryFrom([
      { id: 'a', apiKey: 'key-a', clientTokens: [tokenA] },
      { id: 'b', apiKey: 'key-b', clientTokens: [tokenB] },
    ]);
    expect(registry.authenticate(`Bearer ${tokenA}`)?.id).toBe('a');
    expect(registry.authenticate(`Bearer ${tokenB}`)?.id).toBe('b');
    expect(registry.byId('b')?.apiKey).toBe('key-b');
    const callbackToken = registry.byId('a')?.callbackToken ?? '';
    expect(registry.byCallback(callbackToken)?.id).toBe('a');
    expect(registry.secrets()).toEqual(expect.arrayContaining(['key-a', 'key-b', tokenA, tokenB, callbackToken]));
  });

  it("gives a token the quota its bearer header counts against, derived once, never the token's text", () => {
    const registry = registryFrom([
      { id: 'a', apiKey: 'key-a', clientTokens: [tokenA] },
      { id: 'b', apiKey: 'key-b', clientTokens: [tokenB] },
    ]);
    const [a, b] = [tokenA, tokenB].map((t) => registry.identify(`Bearer ${t}`)?.quotaKey);
    expect(a).toBe(clientKey(`Bearer ${tokenA}`, '10.0.0.1'));
    expect(b).toBe(clientKey(`Bearer ${tokenB}`, '10.0.0.2'));
    expect(a).not.toBe(b);
    expect(a).not.toContain(tokenA);
  });
});

describe('a reload (replaceWith)', () => {
  it("tells a removed merchant's signal, keeps a kept merchant's across reloads, even when its settings change", () => {
    const a = { id: 'a', apiKey: 'key-a', clientTokens: [tokenA] };
    const b = { id: 'b', apiKey: 'key-b', clientTokens: [tokenB] };
    const registry = registryFrom([a, b]);
    const [ofA, ofB] = [registry.removalOf('a')!, registry.removalOf('b')!];
    registry.replaceWith(registryFrom([{ ...a, apiKey: 'key-a2' }, b]));
    expect([ofA.aborted, ofB.aborted]).toEqual([false, false]);
    expect(registry.removalOf('a')).toBe(ofA);
    registry.replaceWith(registryFrom([{ ...a, apiKey: 'key-a2' }]));
    expect([ofA.aborted, ofB.aborted]).toEqual([false, true]);
    expect(registry.removalOf('b')).toBeUndefined();
  });
});
