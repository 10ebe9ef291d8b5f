import { SCOPES, type Scope } from '../api/api.session';

export interface ScreenLink {
  to: string;
  name: string;
  /** Any one of these lets a token use the screen; without, its link is not offered. */
  scopes: readonly Scope[];
}

/** The nav's links, in the order a payouts team works through them. */
export const SCREENS: readonly ScreenLink[] = [
  { to: '/payouts', name: 'Payouts', scopes: [SCOPES.read] },
  { to: '/new', name: 'New payout', scopes: [SCOPES.write] },
  { to: '/approvals', name: 'Approvals', scopes: [SCOPES.approve] },
  { to: '/scheduled', name: 'Scheduled', scopes: [SCOPES.read] },
  // beneficiaries:write alone only adds: the screen then offers that.
  { to: '/beneficiaries', name: 'Beneficiaries', scopes: [SCOPES.beneficiariesRead, SCOPES.beneficiariesWrite] },
  { to: '/batches', name: 'Batches', scopes: [SCOPES.write] },
  { to: '/finance', name: 'Finance', scopes: [SCOPES.read] },
  { to: '/audit', name: 'Audit', scopes: [SCOPES.audit] },
];
