import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { ConfigError } from '../config';
import { PayoutControls } from '../disbursements/payout.controls';
import { parseControls } from './payout-controls.schema';

/** One merchant as configured: MERCHANTS_FILE's entry, or the single merchant of MERCHANT_API_KEY. */
export interface MerchantSpec {
  id: string;
  apiKey: string;
  clientTokens: { token: string; name?: string }[];
  webhookSecret?: string[];
  controls?: PayoutControls;
}

const clientToken = z.string().min(16, 'client tokens must be at least 16 characters');

const merchantsFileSchema = z
  .array(
    z.object({
      id: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'id must be 1-64 letters, digits, _ or -'),
      apiKey: z.string().min(1),
      clientTokens: z
        .array(
          z.union([
            clientToken,
            // A named token: the name is who acts with it (payout controls, history), never the token.
            z.strictObject({ token: clientToken, name: z.string().trim().min(1).max(64) }),
          ]),
        )
        .min(1),
      controls: z.unknown().optional(),
      webhookSecret: z
        .string()
        .transform((v) => v.split(/\s+/).filter((secret) => secret.length > 0))
        .refine(
          (secrets) => secrets.length > 0 && secrets.every((secret) => /^whsec_[A-Za-z0-9+/=]{16,}$/.test(secret)),
          'webhookSecret must be whsec_ followed by base64 (several separated by spaces)',
        )
        .optional(),
    }),
  )
  .min(1);

/**
 * Why the file is not JSON, without its text: V8's message quotes the text around the fault,
 * and that text may be a key or a token.
 */
function unreadable(error: unknown): string {
  if (!(error instanceof SyntaxError)) return (error as NodeJS.ErrnoException).code ?? 'cannot be read';
  const where = /at position \d+(?: \(line \d+ column \d+\))?/.exec(error.message)?.[0];
  return where ? `not valid JSON ${where}` : 'not valid JSON';
}

/**
 * MERCHANTS_FILE, read and checked as a whole (at start and at each reload): a ConfigError names
 * the first problem, the entry and the field, never a credential.
 */
export function readMerchantsFile(path: string): MerchantSpec[] {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new ConfigError(`Invalid setting MERCHANTS_FILE: cannot read JSON (${unreadable(error)})`);
  }
  const parsed = merchantsFileSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ConfigError(`Invalid setting MERCHANTS_FILE: at [${issue.path.join('.')}] ${issue.message}`);
  }
  const ids = parsed.data.map((m) => m.id);
  const repeatedId = ids.find((id, i) => ids.indexOf(id) !== i);
  if (repeatedId)
    throw new ConfigError(`Invalid setting MERCHANTS_FILE: merchant id "${repeatedId}" is listed more than once`);
  // One provider key under two merchants would let each read, squat and be told of the other's referenceIds.
  const keys = parsed.data.map((m) => m.apiKey);
  const repeatedKey = keys.findIndex((key, i) => keys.indexOf(key) !== i);
  if (repeatedKey !== -1) {
    const first = parsed.data[keys.indexOf(keys[repeatedKey])].id;
    throw new ConfigError(
      `Invalid setting MERCHANTS_FILE: merchants "${first}" and "${parsed.data[repeatedKey].id}" have the same apiKey; each merchant needs its own`,
    );
  }
  const specs: MerchantSpec[] = parsed.data.map((m) => ({
    ...m,
    clientTokens: m.clientTokens.map((t) => (typeof t === 'string' ? { token: t } : t)),
    controls: m.controls === undefined ? undefined : parseControls(m.controls, 'MERCHANTS_FILE', m.id),
  }));
  const tokens = specs.flatMap((m) => m.clientTokens.map((t) => t.token));
  // A token under two merchants would authenticate as whichever came last: one merchant acting as another.
  if (new Set(tokens).size !== tokens.length)
    throw new ConfigError('Invalid setting MERCHANTS_FILE: a client token is listed more than once');
  return specs;
}
