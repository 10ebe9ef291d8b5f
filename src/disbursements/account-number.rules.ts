/**
 * The shape of an accountNumber on each channel: the provider's own rule, written once for the
 * gateway's validation and the sandbox alike, so the gateway never spends a provider call on a
 * number the provider refuses for its shape. Whether a mobile number belongs to an operator the
 * provider serves stays the provider's call.
 */
export interface AccountNumberRule {
  readonly pattern: RegExp;
  /** Follows the field's name in a refusal: `accountNumber must be …`. */
  readonly message: string;
}

export const BANK_ACCOUNT_NUMBER: AccountNumberRule = {
  pattern: /^\d{4,34}$/,
  message: 'must be 4 to 34 digits, no letters or separators',
};

export const MOBILE_MONEY_ACCOUNT_NUMBER: AccountNumberRule = {
  pattern: /^260\d{9}$/,
  message: 'must be 12 digits starting with 260, no separators',
};
