import { BankRequest, DisbursementChannel, MobileMoneyRequest, PaymentType } from './disbursement.model';

/**
 * Everything that differs between the payout channels, in one place: a channel added to
 * `DisbursementChannel` does not compile until it has its rule here, so none is ever taken for
 * another channel by an `else`.
 */

/**
 * The shape of an accountNumber on a channel: the provider's own rule, written once for the
 * gateway's validation and the sandbox alike, so the gateway never spends a provider call on a
 * number the provider refuses for its shape. Whether a mobile number belongs to an operator the
 * provider serves stays the provider's call.
 */
export interface AccountNumberRule {
  readonly pattern: RegExp;
  /** Follows the field's name in a refusal: `accountNumber must be …`. */
  readonly message: string;
}

/** Which of the provider's create endpoints a channel's payouts go to (the upstream client knows its path and body). */
export type ProviderEndpoint = 'BANK' | 'MOBILE_MONEY';

interface RequestOfChannel {
  BANK: BankRequest;
  MOBILE_MONEY: MobileMoneyRequest;
}

export interface ChannelRule<C extends DisbursementChannel> {
  /** The paymentType a new payout carries until the provider names its own. */
  readonly paymentType: PaymentType;
  /** How the audit names the channel: `bank payout to …`. */
  readonly label: string;
  readonly accountNumber: AccountNumberRule;
  readonly endpoint: ProviderEndpoint;
  /** Where the final record is relayed: the client's callbackUrl, on a channel whose request takes one. */
  relayUrl(request: RequestOfChannel[C]): string | undefined;
}

export const CHANNEL_RULES: { readonly [C in DisbursementChannel]: ChannelRule<C> } = {
  BANK: {
    paymentType: 'BANK',
    label: 'bank',
    accountNumber: { pattern: /^\d{4,34}$/, message: 'must be 4 to 34 digits, no letters or separators' },
    endpoint: 'BANK',
    relayUrl: (request) => request.callbackUrl,
  },
  MOBILE_MONEY: {
    paymentType: 'OTHER',
    label: 'mobile money',
    accountNumber: { pattern: /^260\d{9}$/, message: 'must be 12 digits starting with 260, no separators' },
    endpoint: 'MOBILE_MONEY',
    // The mobile money input takes no callbackUrl: nothing is relayed.
    relayUrl: () => undefined,
  },
};

/** The relay address of a payout's request, by its channel's rule. */
export function relayUrlOf<C extends DisbursementChannel>(
  request: RequestOfChannel[C] & { channel: C },
): string | undefined {
  const rule: ChannelRule<C> = CHANNEL_RULES[request.channel];
  return rule.relayUrl(request);
}

/**
 * The channel of a payout the provider names by its paymentType (one no create of the gateway
 * claimed): its operators' types and a type it does not know are taken as mobile money.
 */
export const CHANNEL_OF_PAYMENT_TYPE: Readonly<Record<PaymentType, DisbursementChannel>> = {
  BANK: 'BANK',
  OPERATOR_A_MONEY: 'MOBILE_MONEY',
  OPERATOR_B_MONEY: 'MOBILE_MONEY',
  OPERATOR_C_KWACHA: 'MOBILE_MONEY',
  OTHER: 'MOBILE_MONEY',
};
