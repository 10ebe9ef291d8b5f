import type { AuditRowFragment, PayoutDetailFragment } from '../gql/graphql';

export interface TimelineItem {
  key: string;
  at: string;
  what: string;
  who: string;
  detail: string;
}

/** Who a step names: a person (a JWT's sub, a client token's name), else the provider or the gateway by its source. */
function whoOf(actor: string | null, source: string): string {
  if (actor) return actor;
  return source === 'CALLBACK' || source === 'CREATE' || source === 'STATUS_CHECK' ? 'provider' : 'gateway';
}

/**
 * A payout's history and its audit entries as one timeline, oldest first: who asked, who approved,
 * what the provider answered, and when. An entry at the same time as a step of the same status
 * adds what the history does not say.
 */
export function timelineOf(
  history: PayoutDetailFragment['history'],
  audit: readonly AuditRowFragment[],
): TimelineItem[] {
  const steps: TimelineItem[] = history.map((step, index) => ({
    key: `h${index}`,
    at: step.at,
    what: step.repeated > 1 ? `${step.status} (${step.repeated} times)` : step.status,
    who: whoOf(step.actor, step.source),
    detail: [step.source, step.providerStatus && `provider: ${step.providerStatus}`, step.message]
      .filter(Boolean)
      .join(' · '),
  }));
  const entries: TimelineItem[] = audit.map((entry) => ({
    key: `a${entry.sequence}`,
    at: entry.at,
    what: `Audit: ${entry.action}`,
    who: entry.actor ?? 'gateway',
    detail: [entry.status, entry.detail, `#${entry.sequence} ${entry.hash.slice(0, 12)}`].filter(Boolean).join(' · '),
  }));
  return [...steps, ...entries].sort((a, b) => Date.parse(a.at) - Date.parse(b.at));
}
