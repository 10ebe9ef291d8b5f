/**
 * The demo page's script, served as /demo/demo.js. Plain browser JavaScript in a string: no
 * build step, and it speaks the graphql-transport-ws protocol itself so the page needs no
 * client library and works offline. Server data is only ever set as textContent.
 */
export const DEMO_SCRIPT = String.raw`'use strict';

const TOKEN_KEY = 'payout-demo:token';
const FIELDS = 'referenceId status message amount currency paymentType identifier updatedAt sendAt history { status message source at actor }';
const CREATE = 'mutation CreateMobileMoneyDisbursement($input: MobileMoneyDisbursementInput!) { createMobileMoneyDisbursement(input: $input) { ' + FIELDS + ' } }';
const WATCH = 'subscription WatchDisbursement($referenceId: ID!) { disbursementUpdated(referenceId: $referenceId) { ' + FIELDS + ' } }';

const RETRY_SAME = "We don't know yet if it was sent; do not resend with a new reference — retry with the same one.";
const ERROR_TEXT = {
  BAD_USER_INPUT: (e) => 'Please correct ' + (fieldsOf(e) || 'the form') + '.',
  UNAUTHENTICATED: () => 'The gateway needs a valid token (this one is missing, invalid or expired): enter it under “Bearer token” and send again.',
  FORBIDDEN: () => 'This token is not allowed to do that (its scopes or merchant).',
  RATE_LIMITED: (e) => 'Too many requests: wait ' + (e.extensions.retryAfter ?? 'a few') + ' s, then send again with the same reference.',
  REFERENCE_CONFLICT: (e) => 'This reference was already used for a different payout' + (fieldsOf(e) ? ' (' + fieldsOf(e) + ' differ)' : '') + ': press “New” for a fresh reference.',
  UPSTREAM_AUTH_FAILED: () => "The payout provider refused the merchant key. Nothing was sent; the gateway's operator has to fix the key.",
  UPSTREAM_UNAVAILABLE: () => 'The payout provider is unavailable: nothing was sent, safe to retry.',
  OUTCOME_UNKNOWN: () => RETRY_SAME,
  LIMIT_EXCEEDED: (e) => 'Above what ' + e.extensions.limit + ' allows: ' + e.extensions.remaining + ' left. Nothing was stored or sent.',
  INVALID_STATE: (e) => 'This payout is ' + e.extensions.status + ': it no longer awaits approval or its send time.',
  NO_ANSWER: () => 'No usable answer from the gateway. ' + RETRY_SAME,
};
const STATUS_TEXT = {
  PENDING: () => 'Sent; waiting for the operator to settle it.',
  SUCCESSFUL: () => 'Paid.',
  FAILED: (r) => 'Not paid: ' + (r.message || 'the provider gave no reason') + '.',
  CANCELLED: () => 'Cancelled: not paid.',
  AWAITING_APPROVAL: () => 'Held for approval by a second person: nothing is sent until then.',
  SCHEDULED: (r) => 'Scheduled: sent once at ' + new Date(r.sendAt).toLocaleString() + '; it can be cancelled until then.',
  EXPIRED: (r) => 'Expired: ' + (r.message || 'its send time passed') + '.',
  UNKNOWN: () => 'The gateway is finding out from the provider whether it was sent. Do not pay again with a new reference.',
};
const SOURCE_TEXT = { CREATE: 'provider answer', CALLBACK: 'provider callback', STATUS_CHECK: 'status check', CONTROL: 'payout controls' };
const CLOSE_TEXT = {
  4403: 'The gateway refused the token for live updates, or it expired: paste a fresh one and watch again.',
  4429: 'Too many connection attempts.',
  4500: 'The gateway had an internal error.',
};

const $ = (id) => document.getElementById(id);
const form = $('payout-form');
const sendButton = $('send');
const errors = $('errors');
const payout = $('payout');
const timeline = $('timeline');
const live = $('live');
const rewatch = $('rewatch');
const field = (id) => $(id).value.trim();
let socket;
let watched;

function fieldsOf(error) {
  const fields = error.extensions.fields;
  return Array.isArray(fields) && fields.length > 0 ? fields.map((f) => String(f).replace(/^input\./, '')).join(', ') : '';
}

// crypto.randomUUID needs a secure context; a phone on http://<lan-ip>:4000 is not one.
function newReference() {
  const bytes = crypto.getRandomValues(new Uint8Array(6));
  $('referenceId').value = 'demo-' + Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

function token() {
  return field('token');
}

const { element, money } = window.DemoKit;

function clock(iso) {
  const at = new Date(iso);
  return element('time', at.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', second: '2-digit' }), { datetime: iso });
}

function showErrors(list) {
  errors.replaceChildren(...list.map((error) => {
    const extensions = error.extensions || {};
    const code = typeof extensions.code === 'string' ? extensions.code : 'INTERNAL_SERVER_ERROR';
    const describe = Object.hasOwn(ERROR_TEXT, code) ? ERROR_TEXT[code] : () => 'The gateway could not do this.';
    const item = element('li', undefined, { 'data-code': code });
    const detail = element('small');
    detail.append(element('code', code), ' ' + (error.message || ''));
    item.append(element('p', describe({ ...error, extensions })), detail);
    return item;
  }));
}

function render(record) {
  payout.hidden = false;
  $('payout-ref').textContent = record.referenceId;
  $('status').textContent = record.status;
  $('status').dataset.status = record.status;
  $('status-text').textContent = (STATUS_TEXT[record.status] || (() => ''))(record);
  $('payout-amount').textContent = money(record.amount, record.currency);
  $('payment-type').textContent = record.paymentType;
  $('identifier').textContent = record.identifier || '—';
  $('updated').replaceChildren(clock(record.updatedAt));
  timeline.replaceChildren(...record.history.map((event) => {
    const row = element('li', undefined, { 'data-status': event.status });
    row.append(clock(event.at), ' ', element('strong', event.status), ' ', element('span', SOURCE_TEXT[event.source] || event.source, { class: 'source' }));
    if (event.actor) row.append(' ', element('span', 'by ' + event.actor, { class: 'actor' }));
    if (event.message) row.append(element('p', event.message));
    return row;
  }));
  // The audit trail beside the timeline follows the payout on screen.
  document.dispatchEvent(new CustomEvent('demo:payout', { detail: { referenceId: record.referenceId } }));
}

function setLive(text, canRewatch) {
  live.textContent = text;
  rewatch.hidden = !canRewatch;
}

// A minimal graphql-transport-ws client: one socket per watched payout. The subscription sends
// the current state first, so watching again after a disconnect catches up.
function watch(referenceId) {
  if (socket) socket.close(1000);
  const ws = new WebSocket((location.protocol === 'https:' ? 'wss://' : 'ws://') + location.host + '/graphql', 'graphql-transport-ws');
  const send = (message) => ws.send(JSON.stringify(message));
  let finished = false;
  socket = ws;
  watched = referenceId;
  payout.hidden = false;
  setLive('Connecting for live updates…', false);
  ws.onopen = () => send({ type: 'connection_init', payload: token() ? { authorization: 'Bearer ' + token() } : {} });
  ws.onmessage = (event) => {
    if (socket !== ws) return;
    const message = JSON.parse(event.data);
    if (message.type === 'connection_ack') {
      send({ id: '1', type: 'subscribe', payload: { operationName: 'WatchDisbursement', query: WATCH, variables: { referenceId } } });
      setLive('Live: waiting for the next status…', false);
    } else if (message.type === 'ping') {
      send({ type: 'pong' });
    } else if (message.type === 'next') {
      if (message.payload.errors) showErrors(message.payload.errors);
      if (message.payload.data) render(message.payload.data.disbursementUpdated);
    } else if (message.type === 'error' || message.type === 'complete') {
      finished = true;
      if (message.type === 'error') showErrors(message.payload);
      setLive(message.type === 'error' ? 'Live updates stopped.' : 'Final status reached; live updates ended.', false);
      ws.close(1000);
    }
  };
  ws.onclose = (event) => {
    if (socket === ws && !finished) setLive((CLOSE_TEXT[event.code] || 'Live updates disconnected.') + ' (code ' + event.code + ')', true);
  };
}

async function submit(event) {
  event.preventDefault();
  const input = { referenceId: field('referenceId'), amount: field('amount'), currency: field('currency'), accountNumber: field('accountNumber') };
  if (field('narration')) input.narration = field('narration');
  // datetime-local is the browser's local time; the gateway takes an instant.
  if (field('sendAt')) input.sendAt = new Date(field('sendAt')).toISOString();
  errors.replaceChildren();
  sendButton.disabled = true;
  form.setAttribute('aria-busy', 'true');
  // Never throws: no answer comes back as a NO_ANSWER error.
  const body = await window.DemoKit.graphql(token(), 'CreateMobileMoneyDisbursement', CREATE, { input });
  sendButton.disabled = false;
  form.removeAttribute('aria-busy');
  if (body.errors) {
    showErrors(body.errors);
    // The gateway keeps an UNKNOWN record and finds out; show how it resolves.
    if (body.errors.some((e) => e.extensions && e.extensions.code === 'OUTCOME_UNKNOWN')) watch(input.referenceId);
    return;
  }
  render(body.data.createMobileMoneyDisbursement);
  watch(input.referenceId);
  // The next payout needs its own reference; this one stays on screen above the timeline.
  newReference();
}

form.addEventListener('submit', submit);
$('new-reference').addEventListener('click', newReference);
rewatch.addEventListener('click', () => watch(watched));
$('token').value = sessionStorage.getItem(TOKEN_KEY) || '';
$('token').addEventListener('input', () => {
  if (token()) sessionStorage.setItem(TOKEN_KEY, token());
  else sessionStorage.removeItem(TOKEN_KEY);
});
document.querySelectorAll('[data-ending]').forEach((button) => button.addEventListener('click', () => {
  const account = field('accountNumber');
  $('accountNumber').value = (account.length > 3 ? account.slice(0, -3) : '260971234') + button.dataset.ending;
  $('accountNumber').focus();
}));
newReference();
`;
