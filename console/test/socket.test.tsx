import { ApolloClient, InMemoryCache } from '@apollo/client';
import { ApolloProvider } from '@apollo/client/react';
import { act, render, screen, within } from '@testing-library/react';
import type { Client, Sink } from 'graphql-ws';
import { setSocketState, socketEvents } from '../src/api/api.socket';
import { WsLink } from '../src/api/api.ws-link';
import { Shell } from '../src/app/app.shell';
import { SignInScreen } from '../src/app/sign-in.screen';
import { PayoutAnswer } from '../src/payouts/payout.answer';
import type { CodedError } from '../src/shared/problem';
import { FakeApi, renderWith } from './support/fake-api';
import { payout } from './support/payouts';

const LOST = 'Live updates lost: reconnecting, then resuming where they stopped';

describe('the live connection as the top bar says it', () => {
  // A screen that asks nothing, so only the top bar changes.
  const shell = () => {
    setSocketState('idle');
    history.replaceState(null, '', '/console/nowhere');
    renderWith(new FakeApi(), <Shell onSignIn={() => undefined} />, { sub: 'carol', scope: 'payouts:read' });
    return within(screen.getByRole('banner')).getByRole('status');
  };

  it('says lost only after an abnormal close, never after a normal one', () => {
    const bar = shell();
    const events = socketEvents(() => undefined);
    act(() => events.connecting());
    expect(bar.textContent).toBe('Connecting live updates…');
    act(() => events.connected());
    expect(bar.textContent).toBe('Live');
    // Leaving the last screen with live updates: graphql-ws closes the socket with 1000.
    act(() => events.closed({ code: 1000, reason: 'Normal Closure' }));
    expect(bar.textContent).toBe('');
    act(() => events.connecting());
    expect(bar.textContent).toBe('Connecting live updates…');
    act(() => events.connected());
    act(() => events.closed({ code: 1006, reason: '' }));
    expect(bar.textContent).toBe(LOST);
    // Failed attempts to reconnect are still the same loss.
    act(() => events.connecting());
    act(() => events.closed({ code: 1006, reason: '' }));
    act(() => events.connecting());
    expect(bar.textContent).toBe(LOST);
    act(() => events.connected());
    expect(bar.textContent).toBe('Live');
  });

  it('hands a 4403 close to sign-in, with the reason and UNAUTHENTICATED, and says no reconnecting', () => {
    const bar = shell();
    const refused: CodedError[] = [];
    const events = socketEvents((error) => refused.push(error));
    act(() => events.connected());
    act(() => events.closed({ code: 4403, reason: 'Token expired' }));
    expect(bar.textContent).toBe('');
    expect(refused.map((e) => [e.message, e.code])).toEqual([
      ['The live connection closed: Token expired', 'UNAUTHENTICATED'],
    ]);
    render(<SignInScreen onSignIn={() => undefined} refusal={refused[0]} />);
    const alert = screen.getByRole('alert');
    expect(within(alert).getByText(/The live connection closed: Token expired/)).toBeTruthy();
    expect(within(alert).getByText('UNAUTHENTICATED')).toBeTruthy();
  });
});

describe('a live status whose socket closes', () => {
  it('shows the close reason and its code, never a bare Error', () => {
    let sink: Sink | undefined;
    const socket: Pick<Client, 'subscribe'> = {
      subscribe: (_payload, next) => {
        sink = next;
        return () => undefined;
      },
    };
    const client = new ApolloClient({ link: new WsLink(socket), cache: new InMemoryCache() });
    render(
      <ApolloProvider client={client}>
        <PayoutAnswer payout={payout()} />
      </ApolloProvider>,
    );
    act(() => sink?.error({ code: 1011, reason: 'Internal error' }));
    const alert = screen.getByRole('alert');
    expect(within(alert).getByText('Live status stopped')).toBeTruthy();
    expect(within(alert).getByText(/The live connection closed: Internal error/)).toBeTruthy();
    expect(within(alert).getByText('WS_1011')).toBeTruthy();
  });
});
