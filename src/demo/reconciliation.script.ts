/**
 * The reconciliation part of the demo page, served as /demo/reconciliation.js: starts a run over the
 * statement's window (`startReconciliation`, scope audit:read), follows it (`reconciliationRun`)
 * until it is DONE or FAILED, and shows what it found and its balance check. Plain browser
 * JavaScript; server data is only ever set as textContent.
 */
export const RECONCILIATION_SCRIPT = String.raw`'use strict';

(() => {
  const RUN = 'id state checked total failure finishedAt discrepancies { referenceId kind gatewayStatus providerStatus resolved } balance { currency opening closing explained unexplained }';
  const START = 'mutation StartReconciliation($from: DateTimeISO!, $to: DateTimeISO!) { startReconciliation(from: $from, to: $to) { ' + RUN + ' } }';
  const READ = 'query GetReconciliationRun($id: ID!) { reconciliationRun(id: $id) { ' + RUN + ' } }';
  // The gateway moves a run a step about every second (RECONCILE_INTERVAL_MS): asking more often shows nothing new.
  const POLL_MS = 1000;
  const BALANCE_LINES = [['opening', 'Opening'], ['closing', 'Closing'], ['explained', 'Explained by payouts'], ['unexplained', 'Unexplained']];

  const $ = (id) => document.getElementById(id);
  const token = () => $('token').value.trim();
  const { element, problem, money } = window.DemoKit;
  const graphql = (operationName, query, variables) => window.DemoKit.graphql(token(), operationName, query, variables);
  // followed: the run on screen; a new run stops the polling of the one before.
  const state = { followed: undefined, poll: undefined };

  function discrepancy(d) {
    const tr = element('tr', undefined, { 'data-ref': d.referenceId, 'data-kind': d.kind });
    tr.append(element('td', d.referenceId), element('td', d.kind), element('td', d.gatewayStatus), element('td', d.providerStatus || 'none'), element('td', d.resolved ? 'applied the provider’s status' : 'to look at'));
    return tr;
  }

  function showBalance(balance) {
    $('balance-check-rows').replaceChildren(...(balance ? BALANCE_LINES : []).map(([key, label]) => {
      const tr = element('tr', undefined, { 'data-line': key });
      tr.append(element('th', label, { scope: 'row' }), element('td', money(balance[key], balance.currency), { class: 'amount' }));
      return tr;
    }));
    $('balance-check').hidden = !balance;
  }

  function show(run) {
    const badge = $('reconciliation-state');
    badge.textContent = run.state;
    badge.dataset.status = run.state;
    const bar = $('reconciliation-bar');
    bar.max = Math.max(run.total, 1);
    bar.value = run.state === 'DONE' ? bar.max : run.checked;
    $('reconciliation-progress').textContent = run.checked + ' of ' + run.total + ' payouts checked' + (run.failure ? ': ' + run.failure : '');
    $('reconciliation-run').hidden = false;
    $('discrepancy-rows').replaceChildren(...run.discrepancies.map(discrepancy));
    $('discrepancies').hidden = run.discrepancies.length === 0;
    $('discrepancies-note').textContent = run.state === 'DONE' && run.discrepancies.length === 0 ? 'None: the provider agrees with the gateway on every payout.' : '';
    showBalance(run.balance);
  }

  async function follow(id) {
    const body = await graphql('GetReconciliationRun', READ, { id });
    if (state.followed !== id) return;
    const run = body.data && body.data.reconciliationRun;
    if (!run) {
      // No answer (the gateway restarting, say) is worth another try; a refusal ends the polling.
      const code = body.errors && body.errors[0].extensions && body.errors[0].extensions.code;
      $('reconciliation-note').textContent = problem(body) || 'The run is gone.';
      if (code === 'NO_ANSWER') state.poll = setTimeout(() => follow(id), POLL_MS);
      else $('reconcile').disabled = false;
      return;
    }
    $('reconciliation-note').textContent = '';
    show(run);
    if (run.state === 'RUNNING') state.poll = setTimeout(() => follow(id), POLL_MS);
    else $('reconcile').disabled = false;
  }

  async function start() {
    const chosen = window.DemoFinance.chosenWindow();
    const note = $('reconciliation-note');
    if (chosen.problem) { note.textContent = chosen.problem; return; }
    $('reconcile').disabled = true;
    $('reconciliation-run').hidden = true;
    note.textContent = 'Starting…';
    const body = await graphql('StartReconciliation', START, chosen);
    if (body.errors) {
      note.textContent = problem(body);
      $('reconcile').disabled = false;
      return;
    }
    const run = body.data.startReconciliation;
    clearTimeout(state.poll);
    state.followed = run.id;
    note.textContent = '';
    show(run);
    state.poll = setTimeout(() => follow(run.id), POLL_MS);
  }

  $('reconcile').addEventListener('click', start);
})();
`;
