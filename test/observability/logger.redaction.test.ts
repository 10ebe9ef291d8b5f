import { Writable } from 'node:stream';
import { createLogger } from '../../src/observability/pino.logger';

function capture() {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _e, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  return { lines, logger: createLogger({ level: 'info', secrets: [], destination: sink }) };
}

describe('log redaction of credential fields', () => {
  it('blanks apiKey, a field’s apiKey and its headers’ authorization and x-api-key, and leaves the caller’s objects as they were', () => {
    const { lines, logger } = capture();
    const req = {
      method: 'POST',
      headers: { authorization: 'Bearer eyJ.user.jwt', 'x-api-key': 'key-1', accept: '*/*' },
    };
    const merchant = { id: 'm1', apiKey: 'key-2' };
    logger.info({ apiKey: 'key-3', req, merchant, count: 2 }, 'line');
    expect(lines[0]).toMatchObject({
      apiKey: '[redacted]',
      req: { method: 'POST', headers: { authorization: '[redacted]', 'x-api-key': '[redacted]', accept: '*/*' } },
      merchant: { id: 'm1', apiKey: '[redacted]' },
      count: 2,
      msg: 'line',
    });
    expect(req.headers.authorization).toBe('Bearer eyJ.user.jwt');
    expect(merchant.apiKey).toBe('key-2');
  });

  it('keeps an error’s type, message and stack while blanking its apiKey', () => {
    const { lines, logger } = capture();
    const err = Object.assign(new TypeError('provider refused'), { apiKey: 'key-4' });
    logger.error({ err }, 'failed');
    const logged = lines[0].err as Record<string, unknown>;
    expect(logged).toMatchObject({ type: 'TypeError', message: 'provider refused', apiKey: '[redacted]' });
    expect(logged.stack).toContain('provider refused');
    expect(err.apiKey).toBe('key-4');
  });

  it('passes a line without such fields through unchanged', () => {
    const { lines, logger } = capture();
    logger.info({ referenceId: 'r1', providerCalls: [{ endpoint: 'create', status: '200' }] }, 'graphql operation');
    expect(lines[0]).toMatchObject({ referenceId: 'r1', providerCalls: [{ endpoint: 'create', status: '200' }] });
  });
});

describe('log redaction of secret values', () => {
  it('removes a secret whole when a shorter one is part of it, and its percent-encoded form too', () => {
    const lines: Record<string, unknown>[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _e, done) {
        lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
        done();
      },
    });
    // A merchant key listed before a client token that contains it.
    const logger = createLogger({
      level: 'info',
      secrets: ['sk_live_1', 'sk_live_1_client/token'],
      destination: sink,
    });
    logger.info(`token sk_live_1_client/token in ${encodeURIComponent('sk_live_1_client/token')}`);
    expect(lines[0].msg).toBe('token [redacted] in [redacted]');
  });
});
