import '../node.supported';
import { importJWK, SignJWT } from 'jose';
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from '../config';
import { DEV_ALGORITHM, DEV_KEY_FILE, loadOrCreateDevKey } from './jwt.dev-key';

const USAGE =
  'usage: npm run token -- --merchant default --scope "payouts:read payouts:write" [--ttl 3600] [--sub alice]';

/**
 * `npm run token`: a development JWT signed with the key the embedded sandbox serves. Issuer,
 * audience and merchant claim follow JWT_ISSUER, JWT_AUDIENCE and JWT_MERCHANT_CLAIM, so the
 * token fits the gateway started from the same environment. Prints only the token.
 */
async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      merchant: { type: 'string', default: 'default' },
      scope: { type: 'string', default: 'payouts:read payouts:write' },
      ttl: { type: 'string', default: '3600' },
      // --sub names the person, so two people (a requester and an approver) can be played on one machine.
      sub: { type: 'string' },
      subject: { type: 'string', default: 'dev-user' },
    },
  });
  const ttl = Number(values.ttl);
  if (!Number.isInteger(ttl) || ttl <= 0) throw new ConfigError(`--ttl must be a whole number of seconds. ${USAGE}`);
  const { jwt } = loadConfig();
  const { privateJwk } = await loadOrCreateDevKey();
  const token = await new SignJWT({ [jwt.merchantClaim]: values.merchant, scope: values.scope })
    .setProtectedHeader({ alg: DEV_ALGORITHM, kid: privateJwk.kid, typ: 'JWT' })
    .setIssuer(jwt.issuer ?? 'payout-gateway-dev')
    .setAudience(jwt.audience ?? 'payout-gateway')
    .setSubject(values.sub ?? values.subject)
    .setJti(randomUUID())
    .setIssuedAt()
    .setExpirationTime(`${ttl}s`)
    .sign(await importJWK(privateJwk, DEV_ALGORITHM));
  console.log(token);
  console.error(`signed with ${DEV_KEY_FILE} (kid ${privateJwk.kid}); valid ${ttl} s`);
}

main().catch((error: unknown) => {
  console.error(error instanceof ConfigError || error instanceof TypeError ? `${error.message}\n${USAGE}` : error);
  process.exitCode = 1;
});
