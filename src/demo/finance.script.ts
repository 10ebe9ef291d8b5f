/**
 * The statement part of the demo page, served as /demo/finance.js: a window (today so far unless
 * chosen), the statement of the payouts created in it (`payoutStatement`), and the same window as a
 * CSV file from GET /exports/payouts.csv. It hands the window to the reconciliation part as
 * `window.DemoFinance`. Plain browser JavaScript; server data is only ever set as textContent.
 */
export const FINANCE_SCRIPT = String.raw`'use strict';

window.DemoFinance = (() => {
  const STATEMENT = 'query GetPayoutStatement($from: DateTimeISO!, $to: DateTimeISO!) { payoutStatement(from: $from, to: $to) { from to lines { currency status count amount } } }';

  const $ = (id) => document.getElementById(id);
  const token = () => $('token').value.trim();
  const { element, problem, money } = window.DemoKit;
  // followsNow: the window ends now until someone picks its end. download: the last file's address, freed by the next.
  const state = { followsNow: true, download: undefined, reload: undefined };

  // What a datetime-local input shows: the local time, to the second.
  const local = (date) => new Date(date.getTime() - date.getTimezoneOffset() * 60000).toISOString().slice(0, 19);

  /** The chosen window as ISO times, or why there is none. Its end is not included: now is rounded up a second. */
  function chosenWindow() {
    if (state.followsNow) $('window-to').value = local(new Date(Math.ceil((Date.now() + 1) / 1000) * 1000));
    const from = $('window-from').value;
    const to = $('window-to').value;
    if (!from || !to) return { problem: 'Choose when the window starts and ends.' };
    return { from: new Date(from).toISOString(), to: new Date(to).toISOString() };
  }

  function line(l) {
    const tr = element('tr', undefined, { 'data-currency': l.currency, 'data-status': l.status });
    const status = element('td');
    status.append(element('span', l.status, { class: 'badge', 'data-status': l.status }));
    tr.append(element('td', l.currency), status, element('td', String(l.count), { class: 'amount' }), element('td', money(l.amount, l.currency), { class: 'amount', 'data-col': 'amount' }));
    return tr;
  }

  async function loadStatement() {
    const chosen = chosenWindow();
    const note = $('statement-note');
    if (chosen.problem) { note.textContent = chosen.problem; return; }
    const body = await window.DemoKit.graphql(token(), 'GetPayoutStatement', STATEMENT, chosen);
    if (body.errors) {
      $('statement-rows').replaceChildren();
      note.textContent = problem(body);
      return;
    }
    const { lines } = body.data.payoutStatement;
    $('statement-rows').replaceChildren(...lines.map(line));
    const count = lines.reduce((sum, l) => sum + l.count, 0);
    note.textContent = count === 0 ? 'No payouts in this window.' : count + (count === 1 ? ' payout' : ' payouts') + ', as of ' + new Date().toLocaleTimeString();
  }

  // An <a href> cannot carry the bearer token: the file is fetched with it and saved from memory.
  async function download() {
    const chosen = chosenWindow();
    const note = $('download-note');
    if (chosen.problem) { note.textContent = chosen.problem; return; }
    const button = $('statement-download');
    button.disabled = true;
    note.textContent = 'Preparing the CSV…';
    try {
      const response = await fetch('/exports/payouts.csv?' + new URLSearchParams(chosen), { headers: token() ? { authorization: 'Bearer ' + token() } : {} });
      if (!response.ok) { note.textContent = await refusal(response); return; }
      const file = await response.blob();
      if (state.download) URL.revokeObjectURL(state.download);
      state.download = URL.createObjectURL(file);
      const named = /filename="?([^";]+)"?/.exec(response.headers.get('content-disposition') || '');
      const link = element('a', undefined, { href: state.download, download: named ? named[1] : 'payouts.csv', hidden: '' });
      document.body.append(link);
      link.click();
      link.remove();
      note.textContent = 'CSV downloaded.';
    } catch (error) {
      note.textContent = 'No answer from the gateway: ' + error.message;
    } finally {
      button.disabled = false;
    }
  }

  async function refusal(response) {
    if (response.status === 401) return 'Enter your bearer token above to download.';
    const text = await response.text();
    let said = text;
    try {
      const body = JSON.parse(text);
      said = body.error || (body.errors && body.errors[0] && body.errors[0].message) || text;
    } catch {
      // Not JSON: the text is what the gateway said.
    }
    return 'The gateway refused the download (' + response.status + '): ' + said;
  }

  // A payout shown above may change the window's lines: read them again, once per burst.
  function changed() {
    clearTimeout(state.reload);
    state.reload = setTimeout(loadStatement, 300);
  }

  const midnight = new Date();
  midnight.setHours(0, 0, 0, 0);
  $('window-from').value = local(midnight);
  $('window-to').addEventListener('input', () => { state.followsNow = false; });
  $('window-from').addEventListener('change', loadStatement);
  $('window-to').addEventListener('change', loadStatement);
  $('statement-show').addEventListener('click', loadStatement);
  $('statement-download').addEventListener('click', download);
  $('token').addEventListener('change', loadStatement);
  document.addEventListener('demo:payout', changed);
  loadStatement();

  return { chosenWindow };
})();
`;
