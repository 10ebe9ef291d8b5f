import { z } from 'zod';
import { ConfigError } from '../config';
import { DEFAULT_APPROVAL_TTL_SECONDS, PayoutControls } from '../disbursements/payout.controls';
import { canonicalDecimal } from '../disbursements/decimal.parse';

const amount = z
  .string()
  .regex(/^\d{1,13}(\.\d{1,2})?$/, 'must be a decimal string with at most 2 decimals, e.g. "5000" or "2500.50"')
  .transform((v) => canonicalDecimal(v) ?? v);
const perCurrency = z.record(
  z.string().regex(/^[A-Z]{3}$/, 'currencies are three capital letters, e.g. "ZMW"'),
  amount,
);

const controlsSchema = z.strictObject({
  approvalAbove: perCurrency.optional(),
  maxAmount: perCurrency.optional(),
  dailyLimit: perCurrency.optional(),
  userDailyLimit: perCurrency.optional(),
  approvalTtlSeconds: z
    .number()
    .int('must be a whole number of seconds')
    .min(1, 'must be at least 1')
    .max(30 * 24 * 3600, 'must be at most 30 days')
    .optional(),
  beneficiaryApproval: z.boolean('must be true or false').optional(),
  newPayeeHoldSeconds: z
    .number()
    .int('must be a whole number of seconds')
    .min(0, 'must be at least 0')
    .max(30 * 24 * 3600, 'must be at most 30 days')
    .optional(),
});

/**
 * A merchant's payout controls, validated: a malformed object stops startup with one line naming
 * the setting, the merchant and the key (never a value, which could be a secret pasted by mistake).
 */
export function parseControls(raw: unknown, setting: string, merchantId: string): PayoutControls {
  const parsed = controlsSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const keys = issue.code === 'unrecognized_keys' ? issue.keys : [];
    const key = [...issue.path.map(String), ...keys].join('.') || '(the whole object)';
    const why =
      issue.code === 'unrecognized_keys'
        ? 'is not a control (approvalAbove, maxAmount, dailyLimit, userDailyLimit, approvalTtlSeconds, beneficiaryApproval, newPayeeHoldSeconds)'
        : issue.code === 'invalid_key'
          ? 'is not a currency: three capital letters, e.g. "ZMW"'
          : issue.message;
    throw new ConfigError(`Invalid setting ${setting}: merchant "${merchantId}" controls key ${key} ${why}`);
  }
  // Retention removes only final records, so a held payout is kept until it is decided or expires.
  return { ...parsed.data, approvalTtlSeconds: parsed.data.approvalTtlSeconds ?? DEFAULT_APPROVAL_TTL_SECONDS };
}

/** PAYOUT_CONTROLS as written: JSON text. */
export function parseControlsJson(text: string, merchantId: string): PayoutControls {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(
      `Invalid setting PAYOUT_CONTROLS: merchant "${merchantId}" controls are not JSON (${(error as Error).message.split('\n')[0]})`,
    );
  }
  return parseControls(raw, 'PAYOUT_CONTROLS', merchantId);
}
