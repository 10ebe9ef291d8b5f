import { AuditAction, AuditDraft, AuditEntry, keyed, KeyedDraft, linked } from '../../src/disbursements/audit.entry';
import { DisbursementStatus } from '../../src/disbursements/disbursement.model';
import { AuditPage, AuditQuery } from '../../src/disbursements/disbursement.ports';
import { trailFacts, TrailFacts } from '../../src/disbursements/payout.trail';
import { TEST_AUDIT_KEYS, TEST_ENTRY_KEY } from '../support/chain-key';

/*
 * What a payout's audit trail says before a send (payout.trail.ts), trail by trail: an entry the
 * gateway keyed counts; one added through the database (unkeyed, keyed under a key this gateway does
 * not hold, or a copy of a genuine entry, which the database numbers and links anew) never starts a
 * new life of the payout, so it never clears an ending or a decision still awaited.
 */
const MERCHANT = 'm-trail';
const REF = 'pay-trail-1';
const payout = { merchantId: MERCHANT, referenceId: REF, requesterId: 'token:alice' };
const OTHER_KEY = { keyId: 'not-ours', chainKey: Buffer.alloc(32, 7) };

let clock = Date.parse('2026-12-01T08:00:00Z');
const draft = (action: AuditAction, actor: string | null, status: DisbursementStatus | null): AuditDraft => ({
  at: new Date((clock += 1000)).toISOString(),
  actor,
  action,
  referenceId: REF,
  status,
  amount: '2500.00',
  currency: 'ZMW',
  detail: null,
});

type Step =
  | { by: 'gateway'; draft: AuditDraft }
  /** Added through the database: with no keyed value, under another key, or a copy of the entry `copyOf` back. */
  | { by: 'insider'; draft: AuditDraft; as: 'unkeyed' | 'other key' }
  | { by: 'insider'; copyOf: AuditAction };

const gateway = (action: AuditAction, actor: string | null, status: DisbursementStatus | null): Step => ({
  by: 'gateway',
  draft: draft(action, actor, status),
});
const created = () => gateway(AuditAction.CREATE_REQUESTED, 'alice', 'UNKNOWN');
const held = () => gateway(AuditAction.HELD, 'alice', 'AWAITING_APPROVAL');
const rejected = () => gateway(AuditAction.REJECTED, 'bob', 'CANCELLED');
const approved = (by: string) => gateway(AuditAction.APPROVED, by, 'UNKNOWN');
const scheduled = () => gateway(AuditAction.SCHEDULED, 'alice', 'SCHEDULED');
const copyOf = (action: AuditAction): Step => ({ by: 'insider', copyOf: action });
const forgedRequest = (as: 'unkeyed' | 'other key'): Step => ({
  by: 'insider',
  as,
  draft: draft(AuditAction.CREATE_REQUESTED, 'alice', 'UNKNOWN'),
});

/** The trail as the store would hold it: every entry numbered and linked in order, as the database does. */
function trailOf(steps: readonly Step[]): AuditEntry[] {
  const firsts = new Map<AuditAction, KeyedDraft>();
  const drafts = steps.map((step): KeyedDraft => {
    if (step.by === 'gateway') {
      const entry = keyed(MERCHANT, step.draft, TEST_ENTRY_KEY);
      if (!firsts.has(step.draft.action)) firsts.set(step.draft.action, entry);
      return entry;
    }
    if ('copyOf' in step) {
      const original = firsts.get(step.copyOf);
      if (!original) throw new Error(`no ${step.copyOf} to copy`);
      return original;
    }
    return keyed(MERCHANT, step.draft, OTHER_KEY);
  });
  // An entry with no keyed value: linked like any other, its keyed value and ids left out.
  return linked(undefined, drafts).map((entry, i) => {
    const step = steps[i];
    return step.by === 'insider' && 'as' in step && step.as === 'unkeyed'
      ? { ...entry, mac: null, entryId: null, keyId: null }
      : entry;
  });
}
const list = (...steps: Step[]) => steps;

/** A store port holding `entries`, paged as the real one pages them. */
const reader = (entries: AuditEntry[]) => ({
  auditPage: (merchantId: string, query: AuditQuery): Promise<AuditPage> => {
    const after = query.after ?? 0;
    const mine = entries.filter((e) => merchantId === MERCHANT && e.referenceId === query.filter.referenceId);
    const page = mine.filter((e) => e.sequence > after).slice(0, query.limit);
    return Promise.resolve({ entries: page, hasMore: mine.some((e) => e.sequence > (page.at(-1)?.sequence ?? after)) });
  },
});

interface Expected {
  ended?: AuditAction;
  decision?: 'APPROVED' | 'WITHIN_LIMITS';
  awaitsDecision?: true;
}
const CASES: [string, Step[], Expected][] = [
  ['created within the limits and scheduled', list(created(), scheduled()), { decision: 'WITHIN_LIMITS' }],
  ['held', list(created(), held()), { awaitsDecision: true }],
  ['held, then approved by another person', list(created(), held(), approved('bob')), { decision: 'APPROVED' }],
  ['held, then an approval by its own requester', list(created(), held(), approved('alice')), { awaitsDecision: true }],
  ['held, then rejected', list(created(), held(), rejected()), { ended: AuditAction.REJECTED, awaitsDecision: true }],
  [
    'rejected, then a copy of its own request added',
    list(created(), held(), rejected(), copyOf(AuditAction.CREATE_REQUESTED)),
    { ended: AuditAction.REJECTED, awaitsDecision: true },
  ],
  [
    'rejected, then a request with no keyed value added',
    list(created(), held(), rejected(), forgedRequest('unkeyed')),
    { ended: AuditAction.REJECTED, awaitsDecision: true },
  ],
  [
    'rejected, then a request keyed under a key this gateway does not hold',
    list(created(), held(), rejected(), forgedRequest('other key')),
    { ended: AuditAction.REJECTED, awaitsDecision: true },
  ],
  [
    'held, then a copy of its request and a copy of a scheduling',
    list(created(), scheduled(), held(), copyOf(AuditAction.CREATE_REQUESTED), copyOf(AuditAction.SCHEDULED)),
    { awaitsDecision: true },
  ],
  ['rejected, then asked for again by the gateway: a new life', list(created(), held(), rejected(), created()), {}],
];

describe('what a payout’s audit trail says before a send', () => {
  it.each(CASES)('%s', async (_name, list, expected) => {
    const facts: TrailFacts = await trailFacts(reader(trailOf(list)), TEST_AUDIT_KEYS, payout);
    expect(facts.ended?.action).toBe(expected.ended);
    expect(facts.decision?.kind).toBe(expected.decision);
    expect(facts.awaitsDecision).toBe(expected.awaitsDecision);
  });
});
