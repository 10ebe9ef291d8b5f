import { createContext, useContext } from 'react';
import type { Session } from '../api/api.session';

export interface SessionValue extends Session {
  /** Open access: the gateway took requests without a token. */
  open: boolean;
  signOut(): void;
}

export const SessionContext = createContext<SessionValue>({ open: true, signOut: () => undefined });

export function useSession(): SessionValue {
  return useContext(SessionContext);
}
