import { ApolloProvider } from '@apollo/client/react';
import { useEffect, useMemo, useRef, useState } from 'react';
import { createApi } from '../api/api.client';
import { readToken, saveToken, sessionOf } from '../api/api.session';
import { Loading } from '../shared/loading';
import { codeOf, type CodedError } from '../shared/problem';
import { ACCESS } from './access.operations';
import { Shell } from './app.shell';
import { SessionContext, type SessionValue } from './app.session';
import { SignInScreen } from './sign-in.screen';

type Access = { state: 'checking' } | { state: 'in' } | { state: 'out'; refusal?: unknown };

/**
 * The console: asks the gateway once whether the token (or, without one, open access) is accepted,
 * then shows the screens, or the sign-in form; back at sign-in, saying why, when the gateway ends
 * the live connection because the token expired or was revoked. A new token makes a new client,
 * so nothing cached under one person is shown to the next.
 */
export function App() {
  const [token, setToken] = useState(readToken);
  const tokenRef = useRef(token);
  tokenRef.current = token;
  const [ended, setEnded] = useState<CodedError>();
  /** Back to sign-in, the token forgotten; `why`: the gateway ended the session, which sign-in then says. */
  const signOut = (why?: CodedError) => {
    saveToken(undefined);
    setEnded(why);
    setToken(undefined);
  };
  const api = useMemo(() => createApi(() => tokenRef.current, signOut), [token]);
  useEffect(() => () => api.dispose(), [api]);
  const [access, setAccess] = useState<Access>({ state: 'checking' });

  useEffect(() => {
    let live = true;
    setAccess({ state: 'checking' });
    api.client.query({ query: ACCESS, fetchPolicy: 'network-only' }).then(
      () => live && setAccess({ state: 'in' }),
      (error: unknown) => {
        if (!live) return;
        if (codeOf(error) !== 'UNAUTHENTICATED') return setAccess({ state: 'in' });
        saveToken(undefined);
        setAccess({ state: 'out', refusal: token ? error : undefined });
      },
    );
    return () => {
      live = false;
    };
  }, [api, token]);

  const session = useMemo<SessionValue>(
    () => ({
      ...sessionOf(token),
      open: !token,
      signOut: () => signOut(),
    }),
    [token],
  );
  const signIn = (next: string) => {
    saveToken(next);
    setEnded(undefined);
    setToken(next);
  };

  if (ended) return <SignInScreen onSignIn={signIn} refusal={ended} />;
  if (access.state === 'checking') return <Loading what="the console" />;
  if (access.state === 'out') return <SignInScreen onSignIn={signIn} refusal={access.refusal} />;
  return (
    <ApolloProvider client={api.client}>
      <SessionContext.Provider value={session}>
        <Shell onSignIn={signIn} />
      </SessionContext.Provider>
    </ApolloProvider>
  );
}
