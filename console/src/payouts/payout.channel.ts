import type { DisbursementChannel } from '../gql/graphql';

/** A channel as people read it: every list and page that shows one uses these words. */
export const CHANNEL_NAME: Readonly<Record<DisbursementChannel, string>> = {
  MOBILE_MONEY: 'Mobile money',
  BANK: 'Bank',
};
