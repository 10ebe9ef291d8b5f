import { z } from 'zod';
import { canonicalDecimal, decimalPlaces, fitsJsonNumber, isPositive } from '../disbursements/decimal';
import { GatewayError } from '../disbursements/disbursement.errors';
import { BankRequest, MobileMoneyRequest } from '../disbursements/disbursement.model';
import { BankDisbursementInput } from './bank-disbursement.input';
import { MobileMoneyDisbursementInput } from './mobile-money-disbursement.input';

/** Control characters, line separators and bidirectional overrides (which disguise text). */
// eslint-disable-next-line no-control-regex -- matching control characters is the point.
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u2028-\u202e\u2066-\u2069]/;

const text = (max: number) =>
  z
    .string()
    .refine((v) => v.trim().length > 0, 'must not be empty')
    .refine((v) => v.length <= max, `must be at most ${max} characters`)
    .refine((v) => !CONTROL.test(v), 'must not contain control characters');

const referenceId = z
  .string()
  .regex(/^[\x20-\x7e]{1,64}$/, 'must be 1-64 printable ASCII characters')
  .refine((v) => v.trim() === v, 'must not start or end with a space');

const amount = z.string().transform((raw, ctx) => {
  const value = raw.startsWith('-') ? undefined : canonicalDecimal(raw);
  if (value === undefined || !isPositive(value)) {
    ctx.addIssue({ code: 'custom', message: 'must be a positive amount' });
    return z.NEVER;
  }
  if (decimalPlaces(value) > 2) {
    ctx.addIssue({ code: 'custom', message: 'must have at most 2 decimal places' });
    return z.NEVER;
  }
  if (!fitsJsonNumber(value)) {
    ctx.addIssue({ code: 'custom', message: 'is too large' });
    return z.NEVER;
  }
  return value;
});

const currency = z.string().regex(/^[A-Z]{3}$/, 'must be three capital letters, e.g. ZMW');

const common = {
  referenceId,
  amount,
  currency,
};

const bankSchema = z.strictObject({
  ...common,
  narration: text(255),
  accountNumber: z.string().regex(/^[A-Za-z0-9]{4,34}$/, 'must be 4-34 letters or digits'),
  swiftCode: z.string().regex(/^[A-Za-z0-9]{8}([A-Za-z0-9]{3})?$/, 'must be 8 or 11 letters or digits'),
  firstName: text(100),
  lastName: text(100),
  accountHolderName: text(200),
  phoneNumber: z.string().regex(/^\d{8,15}$/, 'must be 8-15 digits, no separators'),
  email: z.email('must be an e-mail address').max(254).nullish(),
  callbackUrl: z
    .url({ protocol: /^https?$/, error: 'must be an http(s) URL' })
    .max(2048)
    .nullish(),
});

const mobileMoneySchema = z.strictObject({
  ...common,
  accountNumber: z.string().regex(/^\d{8,15}$/, 'must be 8-15 digits'),
  narration: text(255).nullish(),
});

function invalid(error: z.ZodError, argument: string): GatewayError {
  const seen = new Map<string, string>();
  for (const issue of error.issues) {
    const keys = issue.code === 'unrecognized_keys' ? issue.keys : [issue.path.join('.')];
    for (const key of keys) {
      const field = `${argument}.${key}`;
      if (!seen.has(field)) seen.set(field, issue.code === 'unrecognized_keys' ? 'is not a known field' : issue.message);
    }
  }
  const fields = [...seen.keys()];
  return new GatewayError('BAD_USER_INPUT', `Invalid input: ${[...seen].map(([f, m]) => `${f} ${m}`).join('; ')}`, { fields });
}

/** Drops absent optional fields so the request (and its fingerprint) carries only what was given. */
function defined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined && v !== null)) as T;
}

/** `argument` is the input's path in the operation, e.g. `input` or `inputs.3`, so errors name the field exactly. */
export function validateBank(input: BankDisbursementInput, argument = 'input'): BankRequest {
  const parsed = bankSchema.safeParse({ ...input });
  if (!parsed.success) throw invalid(parsed.error, argument);
  const { email, callbackUrl, ...rest } = parsed.data;
  return defined({ channel: 'BANK', ...rest, email: email ?? undefined, callbackUrl: callbackUrl ?? undefined });
}

export function validateMobileMoney(input: MobileMoneyDisbursementInput, argument = 'input'): MobileMoneyRequest {
  const parsed = mobileMoneySchema.safeParse({ ...input });
  if (!parsed.success) throw invalid(parsed.error, argument);
  const { narration, ...rest } = parsed.data;
  return defined({ channel: 'MOBILE_MONEY', ...rest, narration: narration ?? undefined });
}
