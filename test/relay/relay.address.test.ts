import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { loadConfig } from '../../src/config';
import { isPrivateHost, isPublicAddress } from '../../src/relay/relay.address';
import { publicOnlyLookup } from '../../src/relay/relay.connector';
import { RelaySender } from '../../src/relay/relay.sender';

/** Every spelling a client could send as a callbackUrl host that lands somewhere other than the public internet. */
const privateUrls: [string, string][] = [
  ['loopback', 'http://127.0.0.1/'],
  ['loopback, elsewhere in 127/8', 'http://127.255.0.9:8080/x'],
  ['localhost', 'http://localhost:47999/metrics'],
  ['localhost, upper case', 'http://LOCALHOST/'],
  ['localhost with a trailing dot', 'http://localhost./'],
  ['a name under .localhost', 'http://metrics.localhost/'],
  ['unspecified', 'http://0.0.0.0/'],
  ['unspecified, short', 'http://0/'],
  ['loopback as one decimal number', 'http://2130706433/'],
  ['loopback in hex parts', 'http://0x7f.1/'],
  ['loopback in hex', 'http://0x7f000001/'],
  ['loopback in octal', 'http://017700000001/'],
  ['loopback in dotted octal', 'http://0177.0.0.1/'],
  ['loopback, two parts', 'http://127.1/'],
  ['private 10/8', 'http://10.0.0.7:6379/'],
  ['private 172.16/12', 'http://172.31.255.255/'],
  ['private 192.168/16', 'http://192.168.1.1/'],
  ['link-local (cloud metadata)', 'http://169.254.169.254/latest/meta-data/'],
  ['carrier-grade NAT', 'http://100.64.0.1/'],
  ['multicast', 'http://224.0.0.1/'],
  ['broadcast', 'http://255.255.255.255/'],
  ['reserved 240/4', 'http://240.0.0.1/'],
  ['documentation', 'http://192.0.2.1/'],
  ['benchmarking', 'http://198.18.0.1/'],
  ['IPv6 loopback', 'http://[::1]/'],
  ['IPv6 loopback, long form', 'http://[0:0:0:0:0:0:0:1]/'],
  ['IPv6 unspecified', 'http://[::]/'],
  ['IPv4-mapped loopback', 'http://[::ffff:127.0.0.1]/'],
  ['IPv4-mapped loopback in hex', 'http://[::ffff:7f00:1]/'],
  ['IPv4-mapped private', 'http://[::ffff:10.0.0.1]/'],
  ['IPv4-compatible loopback', 'http://[::127.0.0.1]/'],
  ['IPv6 link-local', 'http://[fe80::1]/'],
  ['IPv6 unique-local fc00::/7', 'http://[fc00::1]/'],
  ['IPv6 unique-local fd', 'http://[fd12:3456:789a::1]/'],
  ['IPv6 site-local', 'http://[fec0::1]/'],
  ['IPv6 multicast', 'http://[ff02::1]/'],
  ['NAT64 of loopback', 'http://[64:ff9b::7f00:1]/'],
  ['6to4 of loopback', 'http://[2002:7f00:1::]/'],
  ['Teredo', 'http://[2001:0:4136:e378::1]/'],
  ['IPv6 documentation', 'http://[2001:db8::1]/'],
  ['https on loopback', 'https://127.0.0.1:8443/hook'],
];

const publicUrls: [string, string][] = [
  ['a name', 'https://client.example.com/hooks/payouts'],
  ['a name that looks numeric in part', 'https://127.0.0.1.example.com/'],
  ['a name containing localhost', 'https://localhost.example.com/'],
  ['public IPv4', 'http://8.8.8.8/'],
  ['public IPv4 as one number', 'http://134744072/'],
  ['public IPv4 next to a private range', 'http://172.32.0.1/'],
  ['public IPv4 next to CGNAT', 'http://100.128.0.1/'],
  ['public IPv6', 'http://[2606:4700:4700::1111]/'],
  ['IPv4-mapped public', 'http://[::ffff:8.8.8.8]/'],
];

describe('relay target addresses', () => {
  it.each(privateUrls)('%s (%s) is refused', (_name, url) => {
    expect(isPrivateHost(new URL(url))).toBe(true);
  });

  it.each(publicUrls)('%s (%s) is allowed', (_name, url) => {
    expect(isPrivateHost(new URL(url))).toBe(false);
  });

  it.each([
    ['127.0.0.1', false],
    ['::1', false],
    ['[::1]', false],
    ['::ffff:127.0.0.1', false],
    ['169.254.1.1', false],
    ['fe80::1%eth0', false],
    ['not an address', false],
    ['', false],
    ['93.184.216.34', true],
    ['2a00:1450:4001:80b::200e', true],
  ])('isPublicAddress(%j) is %j', (address, expected) => {
    expect(isPublicAddress(address)).toBe(expected);
  });
});

describe('the relay connects only to checked addresses', () => {
  it('refuses a name that resolves to loopback, at lookup', async () => {
    const error = await new Promise<Error | null>((resolve) =>
      publicOnlyLookup('localhost', { all: true }, (e) => resolve(e)),
    );
    expect(error?.name).toBe('RelayTargetRefused');
  });

  describe('a sender', () => {
    let server: Server;
    let port: number;
    let hits = 0;
    beforeAll(async () => {
      server = createServer((_req, res) => {
        hits += 1;
        res.writeHead(204).end();
      });
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      port = (server.address() as AddressInfo).port;
    });
    afterAll(() => new Promise((r) => server.close(r)));

    const job = (url: string) => ({ merchantId: 'm', referenceId: 'r', url, webhookId: 'relay_x', body: '{}' });

    it.each([
      ['by address', (p: number) => `http://127.0.0.1:${p}/`],
      ['by a name that resolves to it', (p: number) => `http://localhost:${p}/`],
      ['by a numeric spelling', (p: number) => `http://2130706433:${p}/`],
      ['by IPv4-mapped IPv6', (p: number) => `http://[::ffff:127.0.0.1]:${p}/`],
    ])('never reaches a loopback receiver %s, and says only "refused"', async (_name, url) => {
      const sender = new RelaySender({ timeoutMs: 2000, allowPrivateNetworks: false });
      try {
        const before = hits;
        const { attempt, refused } = await sender.send(job(url(port)));
        expect(attempt).toEqual({ at: expect.any(String), error: 'refused' });
        expect(refused).toBe(true);
        expect(hits).toBe(before);
      } finally {
        await sender.close();
      }
    });

    it('reaches it when private networks are allowed', async () => {
      const sender = new RelaySender({ timeoutMs: 2000, allowPrivateNetworks: true });
      try {
        const { attempt } = await sender.send(job(`http://localhost:${port}/`));
        expect(attempt.status).toBe(204);
      } finally {
        await sender.close();
      }
    });

    it('says only "failed" when nothing answers, never the address or the error', async () => {
      const closed = createServer();
      await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
      const deadPort = (closed.address() as AddressInfo).port;
      await new Promise((r) => closed.close(r));
      const sender = new RelaySender({ timeoutMs: 2000, allowPrivateNetworks: true });
      try {
        const { attempt } = await sender.send(job(`http://127.0.0.1:${deadPort}/`));
        expect(attempt).toEqual({ at: expect.any(String), error: 'failed' });
      } finally {
        await sender.close();
      }
    });
  });
});

describe('RELAY_ALLOW_PRIVATE_NETWORKS', () => {
  it.each([
    ['embedded sandbox (no UPSTREAM_BASE_URL)', {}, true],
    ['a real provider', { UPSTREAM_BASE_URL: 'https://provider.example', MERCHANT_API_KEY: 'k' }, false],
    [
      'a real provider, lifted',
      { UPSTREAM_BASE_URL: 'https://provider.example', MERCHANT_API_KEY: 'k', RELAY_ALLOW_PRIVATE_NETWORKS: 'true' },
      true,
    ],
    ['embedded sandbox, closed', { RELAY_ALLOW_PRIVATE_NETWORKS: 'false' }, false],
  ])('with %s is %j', (_name, env, expected) => {
    expect(loadConfig(env).relay.allowPrivateNetworks).toBe(expected);
  });
});
