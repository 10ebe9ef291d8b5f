import { useSyncExternalStore } from 'react';
import type { CodedError } from '../shared/problem';
import { closeError, closeOf, FORBIDDEN_CLOSE } from './api.socket-close';

/** The live connection as the page shows it: none, connecting, live, or lost and reconnecting. */
export type SocketState = 'idle' | 'connecting' | 'live' | 'reconnecting';

let state: SocketState = 'idle';
const listeners = new Set<() => void>();

export function setSocketState(next: SocketState): void {
  if (next === state) return;
  state = next;
  for (const listener of listeners) listener();
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function useSocketState(): SocketState {
  return useSyncExternalStore(subscribe, () => state);
}

/**
 * graphql-ws's connection events as that state. Lost only after an abnormal close of a socket that
 * was live: 1000 is graphql-ws closing a socket no subscription uses any more, and the next connect
 * is a fresh one. A 4403 close (the token expired or was revoked) is never retried: `refused` gets it.
 */
export function socketEvents(refused: (error: CodedError) => void) {
  let up = false;
  let lost = false;
  return {
    connecting: () => setSocketState(lost ? 'reconnecting' : 'connecting'),
    connected: () => {
      up = true;
      lost = false;
      setSocketState('live');
    },
    closed: (event: unknown) => {
      const close = closeOf(event);
      lost = close?.code !== 1000 && close?.code !== FORBIDDEN_CLOSE && (up || lost);
      up = false;
      setSocketState(lost ? 'reconnecting' : 'idle');
      if (close?.code === FORBIDDEN_CLOSE) refused(closeError(close));
    },
  };
}
