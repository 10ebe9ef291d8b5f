/**
 * The scheduled payouts part of the demo page, served as /demo/schedule.js: the payouts SCHEDULED
 * for a later `sendAt`, each with a Cancel button (any person of the merchant with payouts:write may
 * cancel one until it is sent). Plain browser JavaScript; server data is only ever set as
 * textContent. It reads the token from the payout form.
 */
export const SCHEDULE_SCRIPT = String.raw`'use strict';

(() => {
  const LIST = 'query GetScheduledPayouts { disbursementHistory(first: 50, filter: { status: [SCHEDULED] }) { edges { node { referenceId amount currency accountNumber sendAt } } } }';
  const CANCEL = 'mutation CancelDisbursement($referenceId: ID!) { cancelDisbursement(referenceId: $referenceId) { referenceId status } }';
  /** A payout leaves the list when it is sent at its time: look again this often. */
  const REFRESH_MS = 5000;

  const $ = (id) => document.getElementById(id);
  const token = () => $('token').value.trim();
  const { element, problem, money } = window.DemoKit;
  const graphql = (operationName, query, variables) => window.DemoKit.graphql(token(), operationName, query, variables);
  const note = (text, code) => {
    $('scheduled-note').textContent = text;
    if (code) $('scheduled-note').dataset.code = code;
    else delete $('scheduled-note').dataset.code;
  };

  async function cancel(referenceId) {
    const body = await graphql('CancelDisbursement', CANCEL, { referenceId });
    if (body.errors) note(problem(body), (body.errors[0].extensions && body.errors[0].extensions.code) || 'ERROR');
    else note(referenceId + ' cancelled: ' + body.data.cancelDisbursement.status + ', never sent.');
    await load();
  }

  function row(node) {
    const tr = element('tr', undefined, { 'data-ref': node.referenceId });
    const button = element('button', 'Cancel', { type: 'button', 'data-action': 'cancel' });
    button.addEventListener('click', () => cancel(node.referenceId));
    const actions = element('td');
    actions.append(button);
    const at = new Date(node.sendAt);
    tr.append(element('td', node.referenceId), element('td', money(node.amount, node.currency), { class: 'amount' }), element('td', at.toLocaleString(), { 'data-col': 'send-at', title: node.sendAt }), actions);
    return tr;
  }

  async function load() {
    const body = await graphql('GetScheduledPayouts', LIST, {});
    const tbody = $('scheduled-rows');
    if (body.errors) {
      tbody.replaceChildren();
      note(problem(body), 'ERROR');
      return;
    }
    const edges = body.data.disbursementHistory.edges;
    tbody.replaceChildren(...edges.map((edge) => row(edge.node)));
    if (edges.length === 0 && !$('scheduled-note').textContent) note('Nothing is scheduled.');
  }

  $('scheduled-refresh').addEventListener('click', () => { note(''); load(); });
  $('token').addEventListener('change', load);
  $('payout-form').addEventListener('submit', () => setTimeout(() => { note(''); load(); }, 300));
  setInterval(load, REFRESH_MS);
  load();
})();
`;
