import { useSubscription } from '@apollo/client/react';
import { useEffect, useRef } from 'react';
import type { PayoutRowFragment } from '../gql/graphql';
import { useSocketState } from '../api/api.socket';
import { codeOf } from '../shared/problem';
import { PAYOUT_CHANGES } from './payouts.operations';

/**
 * Every change of any payout, for a screen that lists them: `onChange` gets each changed payout
 * (Apollo's cache has already rewritten it), or nothing when changes were lost (the socket was down
 * longer than the gateway keeps them: CURSOR_EXPIRED), when the screen should read its list again;
 * the feed then follows from now; or again when the socket is back after a loss, in case a read
 * failed while the gateway was away. Returns the error that stopped the feed, if one did.
 */
export function usePayoutChanges(onChange: (payout?: PayoutRowFragment) => void): unknown {
  const latest = useRef(onChange);
  latest.current = onChange;
  const { error, restart } = useSubscription(PAYOUT_CHANGES, {
    variables: { after: null },
    onData: ({ data }) => {
      const payout = data.data?.disbursementEvents.disbursement;
      if (payout) latest.current(payout);
    },
  });
  const expired = codeOf(error) === 'CURSOR_EXPIRED';
  // Back after a lost connection: a list read that failed meanwhile is read again.
  const socket = useSocketState();
  const wasLost = useRef(false);
  useEffect(() => {
    if (socket === 'reconnecting') wasLost.current = true;
    else if (socket === 'live' && wasLost.current) {
      wasLost.current = false;
      latest.current();
    }
  }, [socket]);
  useEffect(() => {
    if (!expired) return;
    latest.current();
    restart();
  }, [expired, restart]);
  return expired ? undefined : error;
}
