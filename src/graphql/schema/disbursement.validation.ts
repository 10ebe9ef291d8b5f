import { z } from 'zod';
import { AccountNumberRule, CHANNEL_RULES } from '../../disbursements/channel.rules';
import { canonicalDecimal, decimalPlaces, fitsJsonNumber, isPositive } from '../../disbursements/decimal.parse';
import { badInput, GatewayError } from '../../disbursements/disbursement.errors';
import {
  BankRequest,
  DisbursementChannel,
  DisbursementRequest,
  MobileMoneyRequest,
} from '../../disbursements/disbursement.model';
import { AccountDetails, BeneficiaryDraft } from '../../disbursements/beneficiary.model';
import { BeneficiaryInput } from './beneficiary.type';
import { BeneficiaryPayoutInput } from './beneficiary-payout.input';
import { isPrivateHost } from '../../relay/relay.address';
import { BankDisbursementInput } from './bank-disbursement.input';
import { MobileMoneyDisbursementInput } from './mobile-money-disbursement.input';

/**
 * Characters that are not text a person reads: controls (Cc), line and paragraph separators
 * (Zl, Zp), format characters (Cf: bidirectional marks and overrides, zero-width spaces and joiners,
 * byte-order marks, soft hyphens, tag characters) and surrogates not part of a pair (Cs in `u` mode).
 */
const INVISIBLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/u;

const text = (max: number) =>
  z
    .string()
    .refine((v) => v.trim().length > 0, 'must not be empty')
    .refine((v) => v.length <= max, `must be at most ${max} characters`)
    .refine((v) => !INVISIBLE.test(v), 'must not contain control, format or unpaired surrogate characters');

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

/** The channel's accountNumber shape, as the provider checks it. */
const accountNumberOf = (rule: AccountNumberRule) => z.string().regex(rule.pattern, rule.message);

const common = {
  referenceId,
  amount,
  currency,
};

const callbackUrl = z
  .url({ protocol: /^https?$/, error: 'must be an http(s) URL' })
  .max(2048)
  .nullish();

export interface InputValidationOptions {
  /** Whether a relay may go to loopback, private and link-local addresses (RELAY_ALLOW_PRIVATE_NETWORKS). */
  allowPrivateNetworks: boolean;
}

/**
 * Only its form is checked here: whether a sendAt is too early or too late depends on now, and the
 * domain asks that of new payouts alone, so a retry of an existing one is answered from it.
 */
const sendAt = z.date().nullish();

const publicCallbackUrl = callbackUrl.refine(
  (url) => url === null || url === undefined || !URL.canParse(url) || !isPrivateHost(new URL(url)),
  'must point at a public address: loopback, private, link-local and other special addresses are refused',
);

const bankFields = {
  ...common,
  narration: text(255),
  accountNumber: accountNumberOf(CHANNEL_RULES.BANK.accountNumber),
  swiftCode: z.string().regex(/^[A-Za-z0-9]{8}([A-Za-z0-9]{3})?$/, 'must be 8 or 11 letters or digits'),
  firstName: text(100),
  lastName: text(100),
  accountHolderName: text(200),
  phoneNumber: z.string().regex(/^\d{8,15}$/, 'must be 8-15 digits, no separators'),
  email: z.email('must be an e-mail address').max(254).nullish(),
  sendAt,
};

const bankSchemas = {
  anyAddress: z.strictObject({ ...bankFields, callbackUrl }),
  publicOnly: z.strictObject({ ...bankFields, callbackUrl: publicCallbackUrl }),
};

const mobileMoneySchema = z.strictObject({
  ...common,
  accountNumber: accountNumberOf(CHANNEL_RULES.MOBILE_MONEY.accountNumber),
  narration: text(255).nullish(),
  sendAt,
});

function invalid(error: z.ZodError, argument: string): GatewayError {
  const seen = new Map<string, string>();
  for (const issue of error.issues) {
    const keys = issue.code === 'unrecognized_keys' ? issue.keys : [issue.path.join('.')];
    for (const key of keys) {
      const field = `${argument}.${key}`;
      if (!seen.has(field))
        seen.set(field, issue.code === 'unrecognized_keys' ? 'is not a known field' : issue.message);
    }
  }
  const fields = [...seen.keys()];
  return badInput(`Invalid input: ${[...seen].map(([f, m]) => `${f} ${m}`).join('; ')}`, fields);
}

/** Drops absent optional fields so the request (and its fingerprint) carries only what was given. */
function defined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined && v !== null)) as T;
}

/** `argument` is the input's path in the operation, e.g. `input` or `inputs.3`, so errors name the field exactly. */
export function validateBank(
  input: BankDisbursementInput,
  options: InputValidationOptions,
  argument = 'input',
): BankRequest {
  const schema = options.allowPrivateNetworks ? bankSchemas.anyAddress : bankSchemas.publicOnly;
  const parsed = schema.safeParse({ ...input });
  if (!parsed.success) throw invalid(parsed.error, argument);
  const { email, callbackUrl, sendAt: at, ...rest } = parsed.data;
  return defined({
    channel: 'BANK',
    ...rest,
    email: email ?? undefined,
    callbackUrl: callbackUrl ?? undefined,
    sendAt: at?.toISOString(),
  });
}

export function validateMobileMoney(input: MobileMoneyDisbursementInput, argument = 'input'): MobileMoneyRequest {
  const parsed = mobileMoneySchema.safeParse({ ...input });
  if (!parsed.success) throw invalid(parsed.error, argument);
  const { narration, sendAt: at, ...rest } = parsed.data;
  return defined({
    channel: 'MOBILE_MONEY',
    ...rest,
    narration: narration ?? undefined,
    sendAt: at?.toISOString(),
  });
}

const beneficiaryName = text(100);
/** Each channel's account details under the payout inputs' own rules, with the beneficiary's name. */
const accountSchemas = {
  BANK: z.strictObject({
    name: beneficiaryName,
    channel: z.literal('BANK'),
    accountNumber: bankFields.accountNumber,
    swiftCode: bankFields.swiftCode,
    firstName: bankFields.firstName,
    lastName: bankFields.lastName,
    accountHolderName: bankFields.accountHolderName,
    phoneNumber: bankFields.phoneNumber,
    email: bankFields.email,
  }),
  MOBILE_MONEY: z.strictObject({
    name: beneficiaryName,
    channel: z.literal('MOBILE_MONEY'),
    accountNumber: mobileMoneySchema.shape.accountNumber,
  }),
} satisfies Record<DisbursementChannel, z.ZodType>;

/**
 * A beneficiary's name and account details, with the payout inputs' own rules for each field (the
 * bank fields all required, as on a bank payout; a mobile money one takes the account number alone).
 */
export function validateBeneficiary(input: BeneficiaryInput, argument = 'input'): BeneficiaryDraft {
  const given = defined({ ...input });
  const channel = input.channel;
  switch (channel) {
    case 'BANK': {
      const parsed = accountSchemas.BANK.safeParse(given);
      if (!parsed.success) throw invalid(parsed.error, argument);
      const { name, email, ...details } = parsed.data;
      return { name, details: defined({ ...details, email: email ?? undefined }) };
    }
    case 'MOBILE_MONEY': {
      const parsed = accountSchemas.MOBILE_MONEY.safeParse(given);
      if (!parsed.success) throw invalid(parsed.error, argument);
      const { name, ...details } = parsed.data;
      return { name, details };
    }
    default:
      return channel satisfies never;
  }
}

/**
 * The payout to a beneficiary as the direct mutation for its channel would take it, checked by the
 * same rules: the account details come from the beneficiary, the rest from the input.
 */
export function beneficiaryRequest(
  input: BeneficiaryPayoutInput,
  details: AccountDetails,
  options: InputValidationOptions,
): DisbursementRequest {
  const { beneficiaryId: _beneficiary, ...payout } = input;
  switch (details.channel) {
    case 'BANK': {
      const { channel: _channel, ...account } = details;
      return validateBank({ ...payout, ...account } as BankDisbursementInput, options);
    }
    case 'MOBILE_MONEY': {
      const { channel: _channel, ...account } = details;
      return validateMobileMoney(defined({ ...payout, ...account }));
    }
    default:
      return details satisfies never;
  }
}
