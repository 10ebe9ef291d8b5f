/** The demo page's HTML, served at /demo. Script and styles are separate files so the CSP needs no inline allowance. */
export const DEMO_PAGE = String.raw`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Payouts dashboard · demo</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/demo/demo.css">
<script src="/demo/kit.js" defer></script>
<script src="/demo/demo.js" defer></script>
<script src="/demo/dashboard.js" defer></script>
<script src="/demo/approvals.js" defer></script>
<script src="/demo/schedule.js" defer></script>
<script src="/demo/beneficiaries.js" defer></script>
<script src="/demo/audit.js" defer></script>
<script src="/demo/finance.js" defer></script>
<script src="/demo/reconciliation.js" defer></script>
<script src="/demo/verification.js" defer></script>
</head>
<body>
<header>
  <h1>Mobile money payout</h1>
  <p>Sends a payout through this gateway's GraphQL API and follows its status live.
  Started with <code>npm start</code>, the gateway talks to its embedded sandbox: no money moves.</p>
</header>
<main>
  <form id="payout-form" data-testid="payout-form">
    <label for="referenceId">Reference</label>
    <div class="with-button">
      <input id="referenceId" name="referenceId" required maxlength="64" autocomplete="off" spellcheck="false" aria-describedby="reference-hint">
      <button type="button" id="new-reference">New</button>
    </div>
    <p class="hint" id="reference-hint">Your id for this payout. Sending the same reference again never pays twice.</p>
    <label>Amount <input id="amount" name="amount" inputmode="decimal" value="150.75" required autocomplete="off"></label>
    <label>Currency <input id="currency" name="currency" value="ZMW" required maxlength="3" autocomplete="off"></label>
    <label>Mobile money number <input id="accountNumber" name="accountNumber" inputmode="numeric" value="260971234567" required autocomplete="off"></label>
    <label>Narration (optional) <input id="narration" name="narration" maxlength="255" autocomplete="off"></label>
    <label>Send at (optional) <input id="sendAt" name="sendAt" type="datetime-local" step="1" aria-describedby="send-at-hint"></label>
    <p class="hint" id="send-at-hint">Your local time. Later than now: the payout is scheduled, sent once at that time, and can be cancelled until then.</p>
    <label>Bearer token (optional) <input id="token" name="token" type="password" autocomplete="off" spellcheck="false" aria-describedby="token-hint"></label>
    <p class="hint" id="token-hint">A JWT from your identity provider (in development: <code>npm run token</code>), or a client token when the gateway sets <code>CLIENT_TOKENS</code>. Kept in this tab's session storage.</p>
    <button type="submit" id="send">Send payout</button>
  </form>

  <ul id="errors" data-testid="errors" aria-live="assertive"></ul>

  <section id="payout" data-testid="payout" aria-labelledby="payout-title" hidden>
    <h2 id="payout-title">Payout <code id="payout-ref"></code></h2>
    <p><span class="badge" id="status" data-testid="status"></span> <span id="status-text" data-testid="status-text"></span></p>
    <dl>
      <dt>Amount</dt><dd id="payout-amount" data-testid="payout-amount"></dd>
      <dt>Operator</dt><dd id="payment-type"></dd>
      <dt>Provider id</dt><dd id="identifier"></dd>
      <dt>Updated</dt><dd id="updated"></dd>
    </dl>
    <div class="trails">
      <div>
        <h3>Timeline</h3>
        <ol id="timeline" data-testid="timeline"></ol>
        <p id="live" role="status"></p>
        <button type="button" id="rewatch" hidden>Watch again</button>
      </div>
      <div data-testid="audit">
        <h3>Audit trail</h3>
        <ol id="audit"></ol>
        <p id="audit-note" class="hint" role="status"></p>
      </div>
    </div>
  </section>

  <section aria-labelledby="allowance-title" data-testid="allowance">
    <h2 id="allowance-title">What you may send today</h2>
    <p class="hint">The payout controls of this merchant, for the token above. Empty: no controls.</p>
    <div class="scroll">
      <table>
        <thead><tr><th>Currency</th><th class="amount">Largest payout</th><th class="amount">Approval above</th><th class="amount">Left today (all)</th><th class="amount">Left today (you)</th></tr></thead>
        <tbody id="allowance-rows" data-testid="allowance-rows"></tbody>
      </table>
    </div>
    <p id="allowance-note" class="hint"></p>
  </section>

  <section aria-labelledby="approvals-title" data-testid="approvals">
    <h2 id="approvals-title">Awaiting approval <small id="approvals-live" role="status"></small></h2>
    <p class="hint">Payouts above the approval threshold wait here until a second person (scope <code>payouts:approve</code>) decides. Nobody approves their own.</p>
    <div class="toolbar">
      <label>Reason for a rejection (optional) <input id="reject-reason" maxlength="500" autocomplete="off"></label>
      <button type="button" id="approvals-refresh">Refresh</button>
    </div>
    <div class="scroll">
      <table>
        <thead><tr><th>Reference</th><th>Asked by</th><th class="amount">Amount</th><th>Waiting</th><th></th></tr></thead>
        <tbody id="approval-rows" data-testid="approval-rows"></tbody>
      </table>
    </div>
    <p id="approvals-note" data-testid="approvals-note" role="status"></p>
  </section>

  <section aria-labelledby="scheduled-title" data-testid="scheduled">
    <h2 id="scheduled-title">Scheduled</h2>
    <p class="hint">Payouts waiting for their send time. Anyone of the merchant may cancel one until it is sent; past <code>SCHEDULE_LATE_LIMIT_SECONDS</code> unsent, it expires.</p>
    <div class="toolbar"><button type="button" id="scheduled-refresh">Refresh</button></div>
    <div class="scroll">
      <table>
        <thead><tr><th>Reference</th><th class="amount">Amount</th><th>Send at</th><th></th></tr></thead>
        <tbody id="scheduled-rows" data-testid="scheduled-rows"></tbody>
      </table>
    </div>
    <p id="scheduled-note" data-testid="scheduled-note" role="status"></p>
  </section>

  <section aria-labelledby="ben-title" data-testid="beneficiaries">
    <h2 id="ben-title">Beneficiaries</h2>
    <p class="hint">Saved recipients. Under <code>beneficiaryApproval</code> a new one, or new account details, waits for another person's approval before it can be paid; account numbers show in full only when you edit one.</p>
    <form id="ben-form" autocomplete="off">
      <label>Name <input id="ben-name" maxlength="100"></label>
      <label>Channel <select id="ben-channel"><option value="MOBILE_MONEY">Mobile money</option><option value="BANK">Bank</option></select></label>
      <label>Account number <input id="ben-account" inputmode="numeric"></label>
      <fieldset id="ben-bank">
        <label>SWIFT code <input id="ben-swiftCode"></label>
        <label>First name <input id="ben-firstName"></label>
        <label>Last name <input id="ben-lastName"></label>
        <label>Account holder <input id="ben-accountHolderName"></label>
        <label>Phone <input id="ben-phoneNumber" inputmode="numeric"></label>
        <label>E-mail <input id="ben-email" type="email"></label>
      </fieldset>
      <div class="toolbar"><button type="button" id="ben-save">Add</button><button type="button" id="ben-cancel">Clear</button></div>
    </form>
    <div class="toolbar">
      <label>Search <input id="ben-search" placeholder="name or account digits"></label>
      <button type="button" id="ben-search-go">Search</button>
      <button type="button" id="ben-refresh">Refresh</button>
      <span id="ben-count" data-testid="ben-count"></span>
    </div>
    <div class="toolbar">
      <label>Pay amount <input id="ben-pay-amount" value="10.00" inputmode="decimal"></label>
      <label>Currency <input id="ben-pay-currency" value="ZMW" maxlength="3"></label>
      <label>Narration <input id="ben-pay-narration" value="Payment" maxlength="255"></label>
    </div>
    <div class="scroll">
      <table>
        <thead><tr><th>Name</th><th>Channel</th><th>Account</th><th>Status</th><th>Id</th><th></th></tr></thead>
        <tbody id="ben-rows" data-testid="ben-rows"></tbody>
      </table>
    </div>
    <div class="toolbar">
      <label>Batch CSV (<code>beneficiaryId,amount,referenceId</code>) <input type="file" id="ben-batch-file" accept=".csv,text/csv"></label>
      <button type="button" id="ben-batch-send">Pay the file</button>
    </div>
    <div class="scroll">
      <table>
        <thead><tr><th>Reference</th><th>Result</th></tr></thead>
        <tbody id="ben-batch-rows" data-testid="ben-batch-rows"></tbody>
      </table>
    </div>
    <p id="ben-note" data-testid="ben-note" role="status"></p>
  </section>

  <section aria-labelledby="balance-title" data-testid="balance">
    <h2 id="balance-title">Wallet balance</h2>
    <p><strong id="balance-amount" data-testid="balance-amount">…</strong> <small id="balance-note"></small>
    <button type="button" id="balance-refresh">Refresh</button></p>
  </section>

  <section aria-labelledby="history-title" data-testid="history">
    <h2 id="history-title">Payouts <small id="history-live" role="status"></small></h2>
    <div class="toolbar">
      <label>Status
        <select id="history-status">
          <option value="">All</option>
          <option>AWAITING_APPROVAL</option>
          <option>PENDING</option>
          <option>SUCCESSFUL</option>
          <option>FAILED</option>
          <option>UNKNOWN</option>
          <option>CANCELLED</option>
          <option>SCHEDULED</option>
          <option>EXPIRED</option>
        </select>
      </label>
      <button type="button" id="history-previous" disabled>Newer</button>
      <button type="button" id="history-next" disabled>Older</button>
    </div>
    <div class="scroll">
      <table>
        <thead><tr><th>Reference</th><th>Status</th><th class="amount">Amount</th><th>Account</th><th>By</th><th>Updated</th></tr></thead>
        <tbody id="history-rows" data-testid="history-rows"></tbody>
      </table>
    </div>
    <p id="history-note" class="hint"></p>
  </section>

  <section aria-labelledby="statement-title" data-testid="statement">
    <h2 id="statement-title">Statement</h2>
    <p class="hint">Your payouts created in the window (its start included, its end not), counted and summed per currency and status.
    The window ends now until you pick its end.</p>
    <div class="toolbar">
      <label>From <input type="datetime-local" id="window-from" step="1" required></label>
      <label>To <input type="datetime-local" id="window-to" step="1" required></label>
      <button type="button" id="statement-show">Show</button>
      <button type="button" id="statement-download">Download CSV</button>
    </div>
    <div class="scroll">
      <table>
        <thead><tr><th>Currency</th><th>Status</th><th class="amount">Count</th><th class="amount">Amount</th></tr></thead>
        <tbody id="statement-rows" data-testid="statement-rows"></tbody>
      </table>
    </div>
    <p id="statement-note" class="hint" role="status"></p>
    <p id="download-note" class="hint" role="status"></p>
  </section>

  <section aria-labelledby="verification-title" data-testid="verification" id="verification">
    <h2 id="verification-title">Audit trail check</h2>
    <p class="hint">The gateway signs your trail's head within a minute of each change and at shutdown, and checks the whole
    chain with its own keys on demand: links, hashes, keyed values, the head and the signed checkpoints. Needs the scope
    <code>audit:read</code>; <code>npm run audit:verify</code> also compares every payout.</p>
    <button type="button" id="verify-trail">Check the trail</button>
    <p id="checkpoint" data-testid="checkpoint"></p>
    <p id="verification-result" data-testid="verification-result" role="status"></p>
  </section>

  <section aria-labelledby="reconciliation-title" data-testid="reconciliation">
    <h2 id="reconciliation-title">Reconciliation</h2>
    <p class="hint">Compares each payout of the statement's window with the provider's own record, then explains the wallet's
    movement by the payouts. Needs the scope <code>audit:read</code>.</p>
    <button type="button" id="reconcile">Reconcile this window</button>
    <p id="reconciliation-note" role="status"></p>
    <div id="reconciliation-run" hidden>
      <p class="progress"><span class="badge" id="reconciliation-state" data-testid="reconciliation-state"></span>
      <progress id="reconciliation-bar"></progress> <span id="reconciliation-progress"></span></p>
      <h3>Discrepancies</h3>
      <div class="scroll" id="discrepancies">
        <table>
          <thead><tr><th>Reference</th><th>Kind</th><th>Gateway</th><th>Provider</th><th>Outcome</th></tr></thead>
          <tbody id="discrepancy-rows" data-testid="discrepancy-rows"></tbody>
        </table>
      </div>
      <p id="discrepancies-note" class="hint"></p>
      <div id="balance-check" data-testid="balance-check" hidden>
        <h3>Balance check</h3>
        <table class="figures">
          <tbody id="balance-check-rows"></tbody>
        </table>
      </div>
    </div>
  </section>

  <section aria-labelledby="batch-title" data-testid="batch">
    <h2 id="batch-title">Bulk payout from CSV</h2>
    <p class="hint">Up to 100 mobile money payouts, sent as one batch. First line:
    <code>referenceId,amount,currency,accountNumber,narration,sendAt</code> (narration and sendAt optional; sendAt an ISO time such as <code>2026-12-01T08:00:00Z</code>).</p>
    <form id="batch-form">
      <div class="with-button">
        <input type="file" id="batch-file" accept=".csv,text/csv">
        <button type="submit" id="batch-send">Send batch</button>
      </div>
    </form>
    <p id="batch-note" role="status"></p>
    <div class="scroll">
      <table>
        <thead><tr><th>Line</th><th>Reference</th><th class="amount">Amount</th><th>Result</th></tr></thead>
        <tbody id="batch-rows" data-testid="batch-rows"></tbody>
      </table>
    </div>
  </section>

  <section aria-labelledby="endings-title">
    <h2 id="endings-title">Sandbox outcomes</h2>
    <p>The sandbox picks the outcome from the last three digits of the number. Tap one to use it.</p>
    <ul class="endings">
      <li><button type="button" data-ending="111">…111</button>fails at once</li>
      <li><button type="button" data-ending="000">…000</button>pending, then fails</li>
      <li><button type="button" data-ending="222">…222</button>stays pending</li>
      <li><button type="button" data-ending="500">…500</button>provider error (500): outcome unknown until the provider shows it or RESEND_AFTER_SECONDS pass</li>
      <li><button type="button" data-ending="408">…408</button>provider timeout: outcome unknown (after UPSTREAM_TIMEOUT_MS)</li>
      <li><button type="button" data-ending="567">…567</button>any other ending: pending, then paid</li>
    </ul>
  </section>
</main>
</body>
</html>
`;
