/**
 * The payout controls part of the demo page, served as /demo/approvals.js: what the signed-in
 * person may still send today (`payoutAllowance`), and the approval queue (payouts
 * AWAITING_APPROVAL, live through `disbursementUpdates`) with Approve and Reject. Plain browser
 * JavaScript; server data is only ever set as textContent. It reads the token from the payout form.
 */
export const APPROVALS_SCRIPT = String.raw`'use strict';

(() => {
  const ALLOWANCE = 'query GetPayoutAllowance { payoutAllowance { currency maxAmount approvalAbove dailyRemaining userDailyRemaining } }';
  const QUEUE = 'query GetApprovalQueue { disbursementHistory(first: 50, filter: { status: [AWAITING_APPROVAL] }) { edges { node { referenceId amount currency accountNumber approval { requestedBy expiresAt } history { at } } } } }';
  const APPROVE = 'mutation ApproveDisbursement($referenceId: ID!) { approveDisbursement(referenceId: $referenceId) { referenceId status } }';
  const REJECT = 'mutation RejectDisbursement($referenceId: ID!, $reason: String) { rejectDisbursement(referenceId: $referenceId, reason: $reason) { referenceId status } }';
  const UPDATES = 'subscription WatchApprovals { disbursementUpdates { referenceId status } }';

  const $ = (id) => document.getElementById(id);
  const token = () => $('token').value.trim();
  let socket;
  let reload;

  const { element, problem, money } = window.DemoKit;
  const graphql = (operationName, query, variables) => window.DemoKit.graphql(token(), operationName, query, variables);

  function age(since) {
    const seconds = Math.max(0, Math.round((Date.now() - Date.parse(since)) / 1000));
    if (seconds < 60) return seconds + ' s';
    if (seconds < 3600) return Math.round(seconds / 60) + ' min';
    return Math.round(seconds / 3600) + ' h';
  }

  async function loadAllowance() {
    const body = await graphql('GetPayoutAllowance', ALLOWANCE, {});
    const tbody = $('allowance-rows');
    if (body.errors) {
      tbody.replaceChildren();
      $('allowance-note').textContent = problem(body);
      return;
    }
    const rows = body.data.payoutAllowance;
    tbody.replaceChildren(...rows.map((a) => {
      const cell = (value, attributes) => element('td', value === null ? 'no limit' : money(value, a.currency), { class: 'amount', ...attributes });
      const tr = element('tr', undefined, { 'data-currency': a.currency });
      tr.append(element('td', a.currency), cell(a.maxAmount), cell(a.approvalAbove), cell(a.dailyRemaining), cell(a.userDailyRemaining, { 'data-col': 'yours' }));
      return tr;
    }));
    $('allowance-note').textContent = rows.length === 0 ? 'No payout controls: every payout is sent at once.' : '';
  }

  async function decide(referenceId, approve) {
    const reason = $('reject-reason').value.trim();
    const body = approve
      ? await graphql('ApproveDisbursement', APPROVE, { referenceId })
      : await graphql('RejectDisbursement', REJECT, { referenceId, reason: reason || null });
    if (body.errors) {
      $('approvals-note').textContent = problem(body);
      $('approvals-note').dataset.code = (body.errors[0].extensions && body.errors[0].extensions.code) || 'ERROR';
    } else {
      const record = approve ? body.data.approveDisbursement : body.data.rejectDisbursement;
      $('approvals-note').textContent = referenceId + (approve ? ' approved: ' : ' rejected: ') + record.status;
      delete $('approvals-note').dataset.code;
    }
    await Promise.all([loadQueue(), loadAllowance()]);
  }

  function row(node) {
    const tr = element('tr', undefined, { 'data-ref': node.referenceId });
    const actions = element('td');
    const buttons = element('div', undefined, { class: 'actions' });
    const approve = element('button', 'Approve', { type: 'button', 'data-action': 'approve' });
    const reject = element('button', 'Reject', { type: 'button', 'data-action': 'reject' });
    approve.addEventListener('click', () => decide(node.referenceId, true));
    reject.addEventListener('click', () => decide(node.referenceId, false));
    buttons.append(approve, reject);
    actions.append(buttons);
    const since = node.history.length > 0 ? node.history[0].at : node.approval.expiresAt;
    tr.append(element('td', node.referenceId), element('td', node.approval.requestedBy, { 'data-col': 'requested-by' }), element('td', money(node.amount, node.currency), { class: 'amount' }), element('td', age(since), { title: 'expires ' + new Date(node.approval.expiresAt).toLocaleString() }), actions);
    return tr;
  }

  async function loadQueue() {
    const body = await graphql('GetApprovalQueue', QUEUE, {});
    const tbody = $('approval-rows');
    if (body.errors) {
      tbody.replaceChildren();
      $('approvals-note').textContent = problem(body);
      return;
    }
    const edges = body.data.disbursementHistory.edges;
    tbody.replaceChildren(...edges.map((edge) => row(edge.node)));
    if (edges.length === 0 && !$('approvals-note').textContent) $('approvals-note').textContent = 'Nothing awaits approval.';
  }

  // Any change of the merchant's payouts may enter or leave the queue, or move the allowance: read both again, once per burst.
  function changed() {
    clearTimeout(reload);
    reload = setTimeout(() => Promise.all([loadQueue(), loadAllowance()]), 200);
  }

  function listen() {
    if (socket) socket.close(1000);
    const ws = new WebSocket((location.protocol === 'https:' ? 'wss://' : 'ws://') + location.host + '/graphql', 'graphql-transport-ws');
    socket = ws;
    const send = (message) => ws.send(JSON.stringify(message));
    ws.onopen = () => send({ type: 'connection_init', payload: token() ? { authorization: 'Bearer ' + token() } : {} });
    ws.onmessage = (event) => {
      const message = JSON.parse(event.data);
      if (message.type === 'connection_ack') {
        send({ id: 'approvals', type: 'subscribe', payload: { operationName: 'WatchApprovals', query: UPDATES } });
        $('approvals-live').textContent = 'Queue live';
      } else if (message.type === 'ping') {
        send({ type: 'pong' });
      } else if (message.type === 'next' && message.payload.data) {
        changed();
      }
    };
    ws.onclose = () => {
      if (socket === ws) $('approvals-live').textContent = 'Queue not live: reload to reconnect';
    };
  }

  function refreshAll() {
    $('approvals-note').textContent = '';
    listen();
    return Promise.all([loadQueue(), loadAllowance()]);
  }

  $('approvals-refresh').addEventListener('click', refreshAll);
  $('token').addEventListener('change', refreshAll);
  $('payout-form').addEventListener('submit', () => setTimeout(changed, 300));
  refreshAll();
})();
`;
