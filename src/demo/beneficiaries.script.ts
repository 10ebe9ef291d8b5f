/**
 * The beneficiary book part of the demo page, served as /demo/beneficiaries.js: add or edit one
 * (name, channel, account details), search the book (account numbers masked as the list gives
 * them), approve, archive, pay one, and pay a batch from a CSV of `beneficiaryId,amount,referenceId`.
 * Plain browser JavaScript; server data is only ever set as textContent. It reads the token from
 * the payout form.
 */
export const BENEFICIARIES_SCRIPT = String.raw`'use strict';

(() => {
  const FIELDS = 'id name channel accountNumber status createdBy approvedBy payableFrom detailsFingerprint';
  const LIST = 'query GetBeneficiaries($filter: BeneficiaryFilter) { beneficiaries(first: 100, filter: $filter) { totalCount edges { node { ' + FIELDS + ' } } } }';
  const ONE = 'query GetBeneficiary($id: ID!) { beneficiary(id: $id) { ' + FIELDS + ' swiftCode firstName lastName accountHolderName phoneNumber email } }';
  const CREATE = 'mutation CreateBeneficiary($input: BeneficiaryInput!) { createBeneficiary(input: $input) { ' + FIELDS + ' } }';
  const UPDATE = 'mutation UpdateBeneficiary($id: ID!, $input: BeneficiaryInput!) { updateBeneficiary(id: $id, input: $input) { ' + FIELDS + ' } }';
  // The approval names the details its row showed: changed since, STALE_APPROVAL and nothing approved.
  const APPROVE = 'mutation ApproveBeneficiary($id: ID!, $seen: String!) { approveBeneficiary(id: $id, expectedDetails: $seen) { ' + FIELDS + ' } }';
  const ARCHIVE = 'mutation ArchiveBeneficiary($id: ID!) { archiveBeneficiary(id: $id) { ' + FIELDS + ' } }';
  const PAY = 'mutation PayBeneficiary($input: BeneficiaryPayoutInput!) { payBeneficiary(input: $input) { referenceId status } }';
  const PAY_MANY = 'mutation PayBeneficiaries($inputs: [BeneficiaryPayoutInput!]!) { payBeneficiaries(inputs: $inputs) { referenceId disbursement { status } error { code message } } }';
  const BANK_FIELDS = ['swiftCode', 'firstName', 'lastName', 'accountHolderName', 'phoneNumber', 'email'];

  const $ = (id) => document.getElementById(id);
  const token = () => $('token').value.trim();
  const { element, problem } = window.DemoKit;
  const graphql = (operationName, query, variables) => window.DemoKit.graphql(token(), operationName, query, variables);
  const codeOf = (body) => (body.errors && body.errors[0].extensions && body.errors[0].extensions.code) || 'ERROR';
  const note = (text, code) => {
    $('ben-note').textContent = text;
    if (code) $('ben-note').dataset.code = code;
    else delete $('ben-note').dataset.code;
  };
  /** The beneficiary being edited; none while adding. */
  let editing;

  function input() {
    const channel = $('ben-channel').value;
    const value = { name: $('ben-name').value, channel, accountNumber: $('ben-account').value.trim() };
    if (channel === 'BANK') BANK_FIELDS.forEach((f) => { if ($('ben-' + f).value.trim()) value[f] = $('ben-' + f).value.trim(); });
    return value;
  }

  function showBankFields() {
    $('ben-bank').hidden = $('ben-channel').value !== 'BANK';
  }

  function resetForm() {
    editing = undefined;
    $('ben-form').reset();
    $('ben-save').textContent = 'Add';
    showBankFields();
  }

  async function save() {
    const body = editing
      ? await graphql('UpdateBeneficiary', UPDATE, { id: editing, input: input() })
      : await graphql('CreateBeneficiary', CREATE, { input: input() });
    if (body.errors) return note(problem(body), codeOf(body));
    const saved = body.data.updateBeneficiary || body.data.createBeneficiary;
    note(saved.name + ' saved: ' + saved.status + '.');
    resetForm();
    await load();
  }

  async function edit(id) {
    const body = await graphql('GetBeneficiary', ONE, { id });
    if (body.errors || !body.data.beneficiary) return note(problem(body) || 'Not found.', codeOf(body));
    const b = body.data.beneficiary;
    editing = id;
    $('ben-name').value = b.name;
    $('ben-channel').value = b.channel;
    $('ben-account').value = b.accountNumber;
    BANK_FIELDS.forEach((f) => { $('ben-' + f).value = b[f] || ''; });
    $('ben-save').textContent = 'Save';
    showBankFields();
  }

  async function act(operationName, query, variables, field, said) {
    const body = await graphql(operationName, query, variables);
    if (body.errors) note(problem(body), codeOf(body));
    else note(body.data[field].name + ' ' + said + ': ' + body.data[field].status + '.');
    await load();
  }

  async function pay(id) {
    const referenceId = 'ben-' + Date.now().toString(36) + '-' + Math.random().toString(36).slice(2, 8);
    const narration = $('ben-pay-narration').value.trim();
    const body = await graphql('PayBeneficiary', PAY, {
      input: { referenceId, beneficiaryId: id, amount: $('ben-pay-amount').value.trim(), currency: $('ben-pay-currency').value.trim(), ...(narration && { narration }) },
    });
    if (body.errors) note(problem(body), codeOf(body));
    else note('Paid: ' + body.data.payBeneficiary.referenceId + ' ' + body.data.payBeneficiary.status + '.');
  }

  function row(node) {
    const tr = element('tr', undefined, { 'data-id': node.id });
    const actions = element('td');
    const button = (label, action, run) => {
      const b = element('button', label, { type: 'button', 'data-action': action });
      b.addEventListener('click', run);
      actions.append(b);
    };
    button('Edit', 'edit', () => edit(node.id));
    if (node.status === 'AWAITING_APPROVAL') button('Approve', 'approve', () => act('ApproveBeneficiary', APPROVE, { id: node.id, seen: node.detailsFingerprint }, 'approveBeneficiary', 'approved'));
    if (node.status === 'ACTIVE') button('Pay', 'pay', () => pay(node.id));
    if (node.status !== 'ARCHIVED') button('Archive', 'archive', () => act('ArchiveBeneficiary', ARCHIVE, { id: node.id }, 'archiveBeneficiary', 'archived'));
    tr.append(element('td', node.name), element('td', node.channel), element('td', node.accountNumber, { 'data-col': 'account' }), element('td', node.status, { 'data-col': 'status' }), element('td', node.id, { 'data-col': 'id' }), actions);
    return tr;
  }

  async function load() {
    const search = $('ben-search').value.trim();
    const body = await graphql('GetBeneficiaries', LIST, { filter: search ? { search } : null });
    if (body.errors) return note(problem(body), codeOf(body));
    $('ben-rows').replaceChildren(...body.data.beneficiaries.edges.map((e) => row(e.node)));
    $('ben-count').textContent = body.data.beneficiaries.totalCount + ' beneficiaries';
  }

  /** A CSV of beneficiaryId,amount,referenceId (a header line first); the currency and narration from the pay fields. */
  async function payFile() {
    const file = $('ben-batch-file').files[0];
    if (!file) return note('Choose a CSV file first.');
    const lines = (await file.text()).split(/\r?\n/).map((l) => l.trim()).filter(Boolean).slice(1);
    const narration = $('ben-pay-narration').value.trim();
    const inputs = lines.map((line) => {
      const [beneficiaryId, amount, referenceId] = line.split(',').map((c) => c.trim());
      return { beneficiaryId, amount, referenceId, currency: $('ben-pay-currency').value.trim(), ...(narration && { narration }) };
    });
    const body = await graphql('PayBeneficiaries', PAY_MANY, { inputs });
    if (body.errors) return note(problem(body), codeOf(body));
    const results = body.data.payBeneficiaries;
    $('ben-batch-rows').replaceChildren(...results.map((r) => {
      const tr = element('tr', undefined, { 'data-ref': r.referenceId });
      tr.append(element('td', r.referenceId), element('td', r.disbursement ? r.disbursement.status : r.error.code + ': ' + r.error.message));
      return tr;
    }));
    note(results.filter((r) => r.disbursement).length + ' of ' + results.length + ' beneficiary payouts recorded.');
  }

  document.addEventListener('DOMContentLoaded', () => {
    $('ben-channel').addEventListener('change', showBankFields);
    $('ben-save').addEventListener('click', save);
    $('ben-cancel').addEventListener('click', resetForm);
    $('ben-search-go').addEventListener('click', load);
    $('ben-refresh').addEventListener('click', load);
    $('ben-batch-send').addEventListener('click', payFile);
    showBankFields();
    void load();
  });
})();
`;
