import { screen } from '@testing-library/react';
import { BeneficiariesScreen } from '../src/beneficiaries/beneficiaries.screen';
import { NewPayoutScreen } from '../src/payouts/new-payout.screen';
import { PayoutsScreen } from '../src/payouts/payouts.screen';
import { FakeApi, never, renderWith } from './support/fake-api';
import { page } from './support/payouts';

describe('what a token is offered', () => {
  it('offers a token that may add beneficiaries but not read them adding only, and asks for no list', () => {
    const api = new FakeApi().answer('BeneficiaryList', never);
    renderWith(api, <BeneficiariesScreen />, { sub: 'erin', scope: 'beneficiaries:write' });
    expect(screen.getByRole('button', { name: 'Add beneficiary' })).toBeTruthy();
    expect(
      screen.getByText(
        'Your token may add beneficiaries but not read them: listing, changing and archiving need beneficiaries:read.',
      ),
    ).toBeTruthy();
    expect(screen.queryByRole('search', { name: 'Search beneficiaries' })).toBeNull();
    expect(api.count('BeneficiaryList')).toBe(0);
  });

  it('offers "Saved beneficiary" in New payout only to a token that may list beneficiaries', () => {
    const api = new FakeApi().answer('Allowance', never);
    const { unmount } = renderWith(api, <NewPayoutScreen />, {
      sub: 'alice',
      scope: 'payouts:write beneficiaries:write',
    });
    expect(screen.getByRole('radio', { name: 'Mobile money' })).toBeTruthy();
    expect(screen.queryByRole('radio', { name: 'Saved beneficiary' })).toBeNull();
    unmount();
    renderWith(api, <NewPayoutScreen />, { sub: 'alice', scope: 'payouts:write beneficiaries:read' });
    expect(screen.getByRole('radio', { name: 'Saved beneficiary' })).toBeTruthy();
  });

  it('offers Export CSV only with payouts:export, and under open access', async () => {
    const api = () => new FakeApi().answer('PayoutList', () => page([])).stream('PayoutChanges');
    const { unmount } = renderWith(api(), <PayoutsScreen />, { sub: 'carol', scope: 'payouts:read' });
    expect(await screen.findByText('No payouts match these filters.')).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Export CSV' })).toBeNull();
    unmount();
    const exporter = renderWith(api(), <PayoutsScreen />, { sub: 'carol', scope: 'payouts:read payouts:export' });
    expect(await screen.findByText('No payouts match these filters.')).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Export CSV' })).toBeTruthy();
    exporter.unmount();
    renderWith(api(), <PayoutsScreen />);
    expect(await screen.findByText('No payouts match these filters.')).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Export CSV' })).toBeTruthy();
  });
});
