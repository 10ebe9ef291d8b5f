import { Fragment, useEffect, useRef, useState } from 'react';
import { allows } from '../api/api.session';
import { useSocketState, type SocketState } from '../api/api.socket';
import { ApprovalsScreen } from '../approvals/approvals.screen';
import { AuditScreen } from '../audit/audit.screen';
import { BatchesScreen } from '../batches/batches.screen';
import { BeneficiariesScreen } from '../beneficiaries/beneficiaries.screen';
import { FinanceScreen } from '../finance/finance.screen';
import { NewPayoutScreen } from '../payouts/new-payout.screen';
import { PayoutScreen } from '../payouts/payout.screen';
import { PayoutsScreen } from '../payouts/payouts.screen';
import { ScheduledScreen } from '../scheduled/scheduled.screen';
import { Link, useLocation } from './app.router';
import { SCREENS, type ScreenLink } from './app.screens';
import { useSession } from './app.session';
import { SignInScreen } from './sign-in.screen';

const SOCKET_TEXT: Record<SocketState, string> = {
  idle: '',
  connecting: 'Connecting live updates…',
  live: 'Live',
  reconnecting: 'Live updates lost: reconnecting, then resuming where they stopped',
};

function screenOf(path: string) {
  if (path === '/' || path === '/payouts') return <PayoutsScreen />;
  if (path.startsWith('/payouts/')) return <PayoutScreen referenceId={decodeURIComponent(path.slice(9))} />;
  if (path === '/new') return <NewPayoutScreen />;
  if (path === '/approvals') return <ApprovalsScreen />;
  if (path === '/scheduled') return <ScheduledScreen />;
  if (path === '/beneficiaries') return <BeneficiariesScreen />;
  if (path === '/batches') return <BatchesScreen />;
  if (path === '/finance') return <FinanceScreen />;
  if (path === '/audit') return <AuditScreen />;
  return (
    <>
      <h1>Not found</h1>
      <p>The console has no screen at this address.</p>
    </>
  );
}

/** The link of the screen a path shows ("/payouts/x" is under Payouts). */
function linkOf(path: string): ScreenLink | undefined {
  const top = path === '/' ? '/payouts' : `/${path.split('/')[1]}`;
  return SCREENS.find((screen) => screen.to === top);
}

/** The frame of every screen: who is signed in, the live connection, one nav landmark, and the screen. */
export function Shell({ onSignIn }: { onSignIn: (token: string) => void }) {
  const session = useSession();
  const socket = useSocketState();
  const { path, visit } = useLocation();
  const [signingIn, setSigningIn] = useState(false);
  const main = useRef<HTMLElement>(null);
  const first = useRef(true);
  const offered = SCREENS.filter((screen) => screen.scopes.some((scope) => allows(session, scope)));
  const current = linkOf(path);

  // The tab and the history name the screen, as separate pages would.
  const title = current?.name ?? 'Payouts';
  useEffect(() => {
    document.title = `${title} · Payouts console`;
  }, [title]);

  // After a navigation, focus moves to the new screen, as a page load would put it.
  useEffect(() => {
    if (first.current) first.current = false;
    else main.current?.focus();
  }, [visit]);

  if (signingIn) return <SignInScreen onSignIn={onSignIn} />;
  return (
    <div className="shell">
      <a className="skip" href="#main">
        Skip to the screen
      </a>
      <header className="top">
        <span className="brand">Payouts console</span>
        <p className={`socket socket-${socket}`} role="status">
          {SOCKET_TEXT[socket]}
        </p>
        <div className="who">
          {session.open ? (
            <>
              <span>Open access</span>
              <button type="button" className="link" onClick={() => setSigningIn(true)}>
                Sign in with a token
              </button>
            </>
          ) : (
            <>
              <span>{session.subject ? `Signed in as ${session.subject}` : 'Signed in'}</span>
              <button type="button" className="link" onClick={() => session.signOut()}>
                Sign out
              </button>
            </>
          )}
        </div>
      </header>
      <nav aria-label="Console">
        <ul>
          {offered.map((screen) => (
            <li key={screen.to}>
              <Link to={screen.to} aria-current={screen === current ? 'page' : undefined}>
                {screen.name}
              </Link>
            </li>
          ))}
        </ul>
      </nav>
      <main id="main" ref={main} tabIndex={-1}>
        {current && !offered.includes(current) ? (
          <>
            <h1>{current.name}</h1>
            <p>Your token does not allow this screen: it needs {current.scopes.join(' or ')}.</p>
          </>
        ) : (
          <Fragment key={visit}>{screenOf(path)}</Fragment>
        )}
      </main>
    </div>
  );
}
