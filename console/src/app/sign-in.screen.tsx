import { useState, type FormEvent } from 'react';
import { ErrorNote } from '../shared/error.note';

const local = ['localhost', '127.0.0.1', '[::1]'].includes(location.hostname);

/** Signing in: a token pasted into a field labelled "Token"; kept in this tab's sessionStorage only. */
export function SignInScreen({ onSignIn, refusal }: { onSignIn: (token: string) => void; refusal?: unknown }) {
  const [token, setToken] = useState('');
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (token.trim()) onSignIn(token.trim());
  };
  return (
    <main className="sign-in" id="main">
      <h1>Payouts console</h1>
      <form onSubmit={submit} className="card">
        <h2>Sign in</h2>
        <p>
          Paste the access token (a JWT) your identity provider gave you, or a client token. It stays in this tab and is
          forgotten when the tab closes.
        </p>
        <label htmlFor="token">Token</label>
        <textarea
          id="token"
          rows={4}
          value={token}
          onChange={(event) => setToken(event.target.value)}
          autoComplete="off"
          spellCheck={false}
          required
        />
        <button type="submit">Sign in</button>
        <ErrorNote error={refusal} title="That token was refused" />
      </form>
      {local && (
        <section className="card hint" aria-labelledby="dev-token">
          <h2 id="dev-token">Developing locally?</h2>
          <p>Mint a development token for the gateway started by npm start:</p>
          <pre>
            npm run token -- --sub alice --scope &quot;payouts:read payouts:write payouts:approve payouts:export
            audit:read beneficiaries:read beneficiaries:write&quot;
          </pre>
        </section>
      )}
    </main>
  );
}
