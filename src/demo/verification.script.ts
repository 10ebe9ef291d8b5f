/**
 * The audit check of the demo page, served as /demo/verification.js: the newest signed checkpoint of
 * the merchant's trail and whether the whole chain verifies (`auditVerification`, scope audit:read),
 * asked at load and whenever the button is pressed. The gateway checks it with its own keys; the
 * page only shows the answer. Plain browser JavaScript; server data is only ever set as textContent.
 */
export const VERIFICATION_SCRIPT = String.raw`'use strict';

(() => {
  const VERIFY = 'query VerifyAuditTrail { auditVerification { verified entries brokenAt reason checkpoint { sequence hash at } } }';

  const $ = (id) => document.getElementById(id);
  const token = () => $('token').value.trim();
  const { element, problem } = window.DemoKit;
  const state = { checks: 0 };

  function checkpointLine(checkpoint) {
    if (!checkpoint) return ['No checkpoint yet: the head is signed within a minute of each change.'];
    const at = new Date(checkpoint.at);
    return ['Latest checkpoint: #' + checkpoint.sequence + ', signed ' + at.toLocaleString() + ' over ', element('code', checkpoint.hash.slice(0, 12), { title: checkpoint.hash })];
  }

  async function check() {
    const button = $('verify-trail');
    button.disabled = true;
    const body = await window.DemoKit.graphql(token(), 'VerifyAuditTrail', VERIFY, {});
    button.disabled = false;
    if (body.errors) {
      $('checkpoint').replaceChildren();
      $('verification-result').replaceChildren(problem(body));
    } else {
      const v = body.data.auditVerification;
      $('checkpoint').replaceChildren(...checkpointLine(v.checkpoint));
      const text = v.verified
        ? '✓ The chain verifies: ' + v.entries + ' entries'
        : '✗ The entry at sequence ' + v.brokenAt + ' does not verify: ' + v.reason;
      $('verification-result').replaceChildren(element('span', text, { 'data-verified': String(v.verified) }));
    }
    state.checks += 1;
    $('verification').setAttribute('data-checks', String(state.checks));
  }

  $('verify-trail').addEventListener('click', check);
  $('token').addEventListener('change', check);
  check();
})();
`;
