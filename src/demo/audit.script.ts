/**
 * The audit part of the demo page, served as /demo/audit.js: beside the timeline of the payout on
 * screen, its entries in the merchant's audit trail (`auditTrail`, scope audit:read), read again
 * whenever the payout changes. Each entry shows the start of its hash and of the hash it covers, so
 * a reader sees the chain hold. Plain browser JavaScript; server data is only ever set as textContent.
 */
export const AUDIT_SCRIPT = String.raw`'use strict';

(() => {
  // Pages of 50 keep each read within the gateway's query cost limit; a payout rarely needs a second.
  const TRAIL = 'query GetAuditTrail($filter: AuditFilter, $after: String) { auditTrail(first: 50, after: $after, filter: $filter) { edges { node { sequence at actor action status detail hash previousHash } } pageInfo { hasNextPage endCursor } } }';
  const GENESIS = '0'.repeat(64);

  const $ = (id) => document.getElementById(id);
  const token = () => $('token').value.trim();
  const { element, problem } = window.DemoKit;
  const short = (hash) => element('code', hash.slice(0, 8), { title: hash });
  // shown: the payout whose trail is on screen; asked: the latest read, so a slower earlier answer never replaces it.
  const state = { shown: undefined, asked: 0, reload: undefined };

  // Another payout's entries may sit between two of this one's: the chain is the merchant's.
  function link(entry, before) {
    if (entry.previousHash === GENESIS) return element('span', 'start of the trail', { 'data-link': 'start' });
    if (!before || before.sequence !== entry.sequence - 1)
      return element('span', '#' + (entry.sequence - 1) + "'s hash, not shown here", { 'data-link': 'elsewhere' });
    return entry.previousHash === before.hash
      ? element('span', "✓ #" + before.sequence + "'s hash", { 'data-link': 'ok' })
      : element('span', "✗ not #" + before.sequence + "'s hash", { 'data-link': 'broken' });
  }

  function item(entry, before) {
    const li = element('li', undefined, { 'data-action': entry.action, 'data-sequence': String(entry.sequence) });
    const at = new Date(entry.at);
    li.append(element('time', at.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', second: '2-digit' }), { datetime: entry.at }), ' ', element('strong', entry.action));
    if (entry.status) li.append(' ', element('span', entry.status, { class: 'badge', 'data-status': entry.status }));
    if (entry.actor) li.append(' ', element('span', 'by ' + entry.actor, { class: 'actor' }));
    if (entry.detail) li.append(element('p', entry.detail));
    const chain = element('p', undefined, { class: 'chain' });
    chain.append('#' + entry.sequence + ' ', short(entry.hash), ' ← ', short(entry.previousHash), ' ', link(entry, before));
    li.append(chain);
    return li;
  }

  async function load() {
    const referenceId = state.shown;
    state.asked += 1;
    const asked = state.asked;
    const entries = [];
    let after = null;
    for (;;) {
      const body = await window.DemoKit.graphql(token(), 'GetAuditTrail', TRAIL, { filter: { referenceId }, after });
      if (asked !== state.asked) return;
      if (body.errors) {
        $('audit').replaceChildren();
        $('audit-note').textContent = problem(body);
        return;
      }
      const page = body.data.auditTrail;
      entries.push(...page.edges.map((edge) => edge.node));
      if (!page.pageInfo.hasNextPage) break;
      after = page.pageInfo.endCursor;
    }
    $('audit').replaceChildren(...entries.map((entry, i) => item(entry, entries[i - 1])));
    $('audit-note').textContent = entries.length === 0 ? 'No entries yet.' : '';
  }

  // A payout's changes come in bursts (its answer, then its callback): one read per burst.
  function changed(referenceId) {
    if (referenceId !== state.shown) {
      state.shown = referenceId;
      $('audit').replaceChildren();
    }
    clearTimeout(state.reload);
    state.reload = setTimeout(load, 150);
  }

  document.addEventListener('demo:payout', (event) => changed(event.detail.referenceId));
  $('token').addEventListener('change', () => {
    if (state.shown) load();
  });
})();
`;
