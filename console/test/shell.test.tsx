import { screen, within } from '@testing-library/react';
import { Shell } from '../src/app/app.shell';
import { FakeApi, renderWith } from './support/fake-api';
import { page } from './support/payouts';

describe('the console frame', () => {
  const api = () => new FakeApi().answer('PayoutList', () => page([])).stream('PayoutChanges');

  it('offers a read-only token no screen that sends, approves or audits', async () => {
    renderWith(api(), <Shell onSignIn={() => undefined} />, { sub: 'carol', scope: 'payouts:read' });
    const nav = screen.getByRole('navigation', { name: 'Console' });
    expect(
      within(nav)
        .getAllByRole('link')
        .map((link) => link.textContent),
    ).toEqual(['Payouts', 'Scheduled', 'Finance']);
    expect(screen.getByText('Signed in as carol')).toBeTruthy();
    expect(await screen.findByText('No payouts match these filters.')).toBeTruthy();
  });

  it('offers every screen under open access, and says so', async () => {
    renderWith(api(), <Shell onSignIn={() => undefined} />);
    const nav = screen.getByRole('navigation', { name: 'Console' });
    expect(within(nav).getAllByRole('link')).toHaveLength(8);
    expect(screen.getByText('Open access')).toBeTruthy();
    expect(await screen.findByText('No payouts match these filters.')).toBeTruthy();
  });

  it('says a screen the token does not allow needs which scope', () => {
    history.replaceState(null, '', '/console/approvals');
    renderWith(api(), <Shell onSignIn={() => undefined} />, { sub: 'carol', scope: 'payouts:read' });
    expect(screen.getByText('Your token does not allow this screen: it needs payouts:approve.')).toBeTruthy();
  });
});
