/**
 * The dashboard part of the demo page, served as /demo/dashboard.js: the wallet balance, the
 * payout history (live through `disbursementEvents`, resumed after the last change when the socket
 * comes back, with a status filter and paging) and a
 * CSV upload sent as one batch. Plain browser JavaScript, no library; server data is only ever
 * set as textContent. It reads the bearer token from the payout form's field.
 */
export const DASHBOARD_SCRIPT = String.raw`'use strict';

(() => {
  const PAGE_SIZE = 10;
  const MAX_ROWS = 100;
  const BALANCE = 'query GetWalletBalance { walletBalance { amount currency asOf } }';
  const HISTORY = 'query GetDisbursementHistory($first: Int, $after: String, $filter: DisbursementFilter) { disbursementHistory(first: $first, after: $after, filter: $filter) { edges { cursor node { referenceId status message amount currency accountNumber channel updatedAt history { actor } } } pageInfo { hasNextPage endCursor } totalCount } }';
  const UPDATES = 'subscription DisbursementEvents($after: String) { disbursementEvents(after: $after) { cursor disbursement { referenceId status message amount currency accountNumber channel updatedAt history { actor } } } }';
  const BATCH = 'mutation CreateMobileMoneyDisbursements($inputs: [MobileMoneyDisbursementInput!]!) { createMobileMoneyDisbursements(inputs: $inputs) { referenceId disbursement { status message } error { code message fields retryAfter } } }';
  const COLUMNS = ['referenceId', 'amount', 'currency', 'accountNumber', 'narration', 'sendAt'];

  const $ = (id) => document.getElementById(id);
  const token = () => $('token').value.trim();
  // lastChange: the cursor of the last live change shown, to resume after it when the socket comes back.
  // historyFailed: the table's last load got no answer (the gateway away): it is loaded again on reconnect.
  const state = { cursors: [null], page: 0, socket: undefined, lastChange: null, historyFailed: false, retries: 0, retry: undefined, subscriptions: 0 };

  const { element, problem, money } = window.DemoKit;
  const graphql = (operationName, query, variables) => window.DemoKit.graphql(token(), operationName, query, variables);

  async function loadBalance() {
    const body = await graphql('GetWalletBalance', BALANCE, {});
    if (body.errors) {
      $('balance-amount').textContent = '—';
      $('balance-note').textContent = problem(body);
      return;
    }
    const balance = body.data.walletBalance;
    $('balance-amount').textContent = money(balance.amount, balance.currency);
    $('balance-note').textContent = 'as of ' + new Date(balance.asOf).toLocaleTimeString();
  }

  function filter() {
    const status = $('history-status').value;
    return status ? { status: [status] } : null;
  }

  function row(node) {
    const tr = element('tr', undefined, { 'data-ref': node.referenceId });
    const badge = element('span', node.status, { class: 'badge', 'data-status': node.status });
    const status = element('td');
    status.append(badge);
    if (node.message) status.title = node.message;
    // Who asked for it: the first step with an actor (the create's).
    const by = (node.history || []).map((event) => event.actor).find(Boolean) || '—';
    tr.append(element('td', node.referenceId), status, element('td', money(node.amount, node.currency), { class: 'amount' }), element('td', node.accountNumber), element('td', by, { 'data-col': 'actor' }), element('td', new Date(node.updatedAt).toLocaleTimeString()));
    return tr;
  }

  async function loadHistory() {
    const body = await graphql('GetDisbursementHistory', HISTORY, { first: PAGE_SIZE, after: state.cursors[state.page], filter: filter() });
    const tbody = $('history-rows');
    state.historyFailed = Boolean(body.errors);
    if (body.errors) {
      tbody.replaceChildren();
      $('history-note').textContent = problem(body);
      return;
    }
    const connection = body.data.disbursementHistory;
    tbody.replaceChildren(...connection.edges.map((edge) => row(edge.node)));
    state.cursors[state.page + 1] = connection.pageInfo.hasNextPage ? connection.pageInfo.endCursor : undefined;
    $('history-next').disabled = !connection.pageInfo.hasNextPage;
    $('history-previous').disabled = state.page === 0;
    const total = connection.totalCount === null ? '' : ' · ' + connection.totalCount + ' payouts';
    $('history-note').textContent = connection.edges.length === 0 ? 'No payouts here.' : 'Page ' + (state.page + 1) + total;
  }

  // A change of a payout on this page is shown in place. Any other change on the first page may be
  // a new payout: the page is read again (once for a burst), as only the gateway knows the order.
  let reload;
  function applyUpdate(node) {
    const existing = document.querySelector('#history-rows tr[data-ref="' + CSS.escape(node.referenceId) + '"]');
    const wanted = filter();
    if (existing) {
      if (!wanted || wanted.status.includes(node.status)) existing.replaceWith(row(node));
      else existing.remove();
      return;
    }
    if (state.page !== 0) return;
    clearTimeout(reload);
    reload = setTimeout(loadHistory, 300);
  }

  function listen() {
    clearTimeout(state.retry);
    if (state.socket) state.socket.close(1000);
    const ws = new WebSocket((location.protocol === 'https:' ? 'wss://' : 'ws://') + location.host + '/graphql', 'graphql-transport-ws');
    state.socket = ws;
    const send = (message) => ws.send(JSON.stringify(message));
    // Every subscribe names the last change shown: after a drop (a restart, a network cut) the gateway replays what was missed.
    const subscribe = () => {
      state.subscriptions += 1;
      send({ id: 'updates-' + state.subscriptions, type: 'subscribe', payload: { operationName: 'DisbursementEvents', query: UPDATES, variables: { after: state.lastChange } } });
    };
    ws.onopen = () => send({ type: 'connection_init', payload: token() ? { authorization: 'Bearer ' + token() } : {} });
    ws.onmessage = (event) => {
      const message = JSON.parse(event.data);
      if (message.type === 'connection_ack') {
        subscribe();
        // The replay only brings changes after the cursor: a table that failed to load meanwhile is read again.
        if (state.historyFailed) loadHistory();
        state.retries = 0;
        $('history-live').textContent = 'Live';
      } else if (message.type === 'ping') {
        send({ type: 'pong' });
      } else if (message.type === 'next' && message.payload.data) {
        const change = message.payload.data.disbursementEvents;
        state.lastChange = change.cursor;
        applyUpdate(change.disbursement);
      } else if (message.type === 'next' && message.payload.errors) {
        const codes = message.payload.errors.map((e) => e.extensions && e.extensions.code);
        if (codes.includes('CURSOR_EXPIRED') || codes.includes('BAD_USER_INPUT')) {
          // Away too long, or a cursor of another token's merchant: read the page again and follow from now.
          state.lastChange = null;
          loadHistory();
          subscribe();
        } else {
          state.retry = setTimeout(subscribe, 2000);
        }
      }
    };
    ws.onclose = (event) => {
      if (state.socket !== ws) return;
      if (event.code === 4403) {
        $('history-live').textContent = 'Not live: the token was refused';
        return;
      }
      $('history-live').textContent = 'Reconnecting…';
      state.retry = setTimeout(listen, Math.min(10000, 500 * 2 ** state.retries));
      state.retries += 1;
    };
  }

  // RFC 4180 enough for payouts: commas, quoted fields with doubled quotes, CRLF or LF.
  function parseCsv(text) {
    const rows = [];
    let row = [];
    let cell = '';
    let quoted = false;
    for (let i = 0; i < text.length; i += 1) {
      const c = text[i];
      if (quoted) {
        if (c === '"' && text[i + 1] === '"') { cell += '"'; i += 1; }
        else if (c === '"') quoted = false;
        else cell += c;
      } else if (c === '"') quoted = true;
      else if (c === ',') { row.push(cell); cell = ''; }
      else if (c === '\n' || c === '\r') {
        if (c === '\r' && text[i + 1] === '\n') i += 1;
        row.push(cell); rows.push(row); row = []; cell = '';
      } else cell += c;
    }
    if (cell !== '' || row.length > 0) { row.push(cell); rows.push(row); }
    return rows.filter((r) => r.some((v) => v.trim() !== ''));
  }

  function inputsOf(rows) {
    const header = rows[0].map((h) => h.trim());
    const missing = COLUMNS.slice(0, 4).filter((c) => !header.includes(c));
    if (missing.length > 0) throw new Error('The first line must name the columns; missing: ' + missing.join(', '));
    return rows.slice(1).map((values) => {
      const input = {};
      header.forEach((name, i) => {
        const value = (values[i] || '').trim();
        if (COLUMNS.includes(name) && value !== '') input[name] = value;
      });
      return input;
    });
  }

  function showResults(inputs, results) {
    $('batch-rows').replaceChildren(...results.map((result, i) => {
      const tr = element('tr', undefined, { 'data-ref': result.referenceId });
      const outcome = element('td');
      if (result.disbursement) {
        outcome.append(element('span', result.disbursement.status, { class: 'badge', 'data-status': result.disbursement.status }));
        if (result.disbursement.message) outcome.append(' ' + result.disbursement.message);
      } else {
        outcome.append(element('code', result.error.code), ' ' + result.error.message);
      }
      tr.append(element('td', String(i + 2)), element('td', result.referenceId), element('td', money(inputs[i].amount || '', inputs[i].currency), { class: 'amount' }), outcome);
      return tr;
    }));
  }

  async function upload(event) {
    event.preventDefault();
    const file = $('batch-file').files[0];
    const note = $('batch-note');
    $('batch-rows').replaceChildren();
    if (!file) { note.textContent = 'Choose a CSV file first.'; return; }
    let inputs;
    try {
      const rows = parseCsv(await file.text());
      if (rows.length < 2) throw new Error('The file has no payouts under its header line.');
      inputs = inputsOf(rows);
    } catch (error) {
      note.textContent = error.message;
      return;
    }
    if (inputs.length > MAX_ROWS) { note.textContent = 'At most ' + MAX_ROWS + ' payouts per file; this one has ' + inputs.length + '.'; return; }
    $('batch-send').disabled = true;
    note.textContent = 'Sending ' + inputs.length + ' payouts as one batch…';
    const body = await graphql('CreateMobileMoneyDisbursements', BATCH, { inputs });
    $('batch-send').disabled = false;
    if (body.errors) { note.textContent = problem(body); return; }
    const results = body.data.createMobileMoneyDisbursements;
    const sent = results.filter((r) => r.disbursement).length;
    note.textContent = sent + ' of ' + results.length + ' payouts recorded; uploading the same file again never pays twice.';
    showResults(inputs, results);
    await Promise.all([loadBalance(), loadHistory()]);
  }

  function refreshAll() {
    state.cursors = [null];
    state.page = 0;
    // Another token may be another merchant: its live changes start from now.
    state.lastChange = null;
    listen();
    return Promise.all([loadBalance(), loadHistory()]);
  }

  $('balance-refresh').addEventListener('click', loadBalance);
  $('history-status').addEventListener('change', () => { state.cursors = [null]; state.page = 0; loadHistory(); });
  $('history-next').addEventListener('click', () => { state.page += 1; loadHistory(); });
  $('history-previous').addEventListener('click', () => { state.page = Math.max(0, state.page - 1); loadHistory(); });
  $('batch-form').addEventListener('submit', upload);
  $('token').addEventListener('change', refreshAll);
  // A payout sent with the form above shows in the table through the live updates; the balance is asked again.
  $('payout-form').addEventListener('submit', () => setTimeout(loadBalance, 500));
  refreshAll();
})();
`;
