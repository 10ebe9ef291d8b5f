import { useSyncExternalStore } from 'react';

/** The live connection as the page shows it: connecting, live, or lost and reconnecting. */
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
