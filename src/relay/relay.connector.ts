import { lookup as dnsLookup, LookupAddress } from 'node:dns';
import { isIP, LookupFunction } from 'node:net';
import { buildConnector } from 'undici';
import { isPublicAddress } from './relay.address';

/** The relay target is not on the public internet; the attempt audit says only "refused". */
export class RelayTargetRefused extends Error {
  constructor() {
    super('relay target is not a public address');
    this.name = 'RelayTargetRefused';
  }
}

/**
 * Resolves once and hands the socket exactly the addresses it checked, so a name cannot answer
 * with a public address here and a private one at connect time (DNS rebinding). A name with any
 * non-public address is refused whole: which one the socket would try first is not ours to pick.
 */
export const publicOnlyLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true }, (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => {
    if (error) return callback(error, []);
    if (addresses.length === 0 || addresses.some((a) => !isPublicAddress(a.address)))
      return callback(new RelayTargetRefused(), []);
    if (options.all) return callback(null, addresses);
    callback(null, addresses[0].address, addresses[0].family);
  });
};

/**
 * An undici connector that reaches public addresses only. Names go through `publicOnlyLookup`;
 * IP literals never reach a lookup (net.connect uses them as they are), so they are checked here.
 */
export function publicOnlyConnector(connectTimeoutMs: number): buildConnector.connector {
  const connect = buildConnector({ timeout: connectTimeoutMs, lookup: publicOnlyLookup });
  return (options, callback) => {
    const host = options.hostname.startsWith('[') ? options.hostname.slice(1, -1) : options.hostname;
    if (isIP(host) !== 0 && !isPublicAddress(host)) {
      callback(new RelayTargetRefused(), null);
      return;
    }
    connect(options, callback);
  };
}
