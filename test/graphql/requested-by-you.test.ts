import { approvalTokens } from '../support/replicas';
import { gql, GraphQLResponse, mobileInput, Stack, startStack } from '../support/stack';
import { subscribe, wsClient } from '../support/ws';

const REQUESTER = 'tok_requested_by_you_requester_0123456789';
const APPROVER = 'tok_requested_by_you_approver_0123456789';
/** Payouts above 1,000 ZMW and every new or changed beneficiary await a second person. */
const CONTROLS = JSON.stringify({ approvalAbove: { ZMW: '1000' }, beneficiaryApproval: true });
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

const CREATE = `mutation Create($input: MobileMoneyDisbursementInput!) {
  createMobileMoneyDisbursement(input: $input) { referenceId status approval { requestedByYou } }
}`;
const ONE = `query One($referenceId: ID!) { disbursement(referenceId: $referenceId) { approval { requestedByYou } } }`;
const QUEUE = `query Queue {
  disbursementHistory(first: 100, filter: { status: [AWAITING_APPROVAL] }) {
    edges { node { referenceId approval { requestedByYou } } }
  }
}`;
const WATCH = `subscription Watch($referenceId: ID!) {
  disbursementUpdated(referenceId: $referenceId) { status approval { requestedByYou } }
}`;
const APPROVE = `mutation Approve($referenceId: ID!) {
  approveDisbursement(referenceId: $referenceId) { status approval { requestedByYou decidedBy } }
}`;
const ENTITIES = `query Entities($representations: [_Any!]!) {
  _entities(representations: $representations) {
    ... on Disbursement { approval { requestedByYou } }
    ... on Beneficiary { requestedByYou }
  }
}`;
const BENEFICIARY_FIELDS = 'id status requestedByYou detailsFingerprint';
const ADD = `mutation Add($input: BeneficiaryInput!) { createBeneficiary(input: $input) { ${BENEFICIARY_FIELDS} } }`;
const CHANGE = `mutation Change($id: ID!, $input: BeneficiaryInput!) {
  updateBeneficiary(id: $id, input: $input) { ${BENEFICIARY_FIELDS} }
}`;
const READ = `query Read($id: ID!) { beneficiary(id: $id) { ${BENEFICIARY_FIELDS} } }`;
const BOOK = `query Book { beneficiaries(first: 100, filter: { status: AWAITING_APPROVAL }) { edges { node { id requestedByYou } } } }`;
const APPROVE_BENEFICIARY = `mutation ApproveBeneficiary($id: ID!, $expectedDetails: String!) {
  approveBeneficiary(id: $id, expectedDetails: $expectedDetails) { ${BENEFICIARY_FIELDS} }
}`;

interface Held {
  referenceId: string;
  status: string;
  approval: { requestedByYou: boolean; decidedBy?: string | null } | null;
}
interface BeneficiaryRead {
  id: string;
  status: string;
  requestedByYou: boolean;
  detailsFingerprint: string;
}

/** The answer's data, once the test has checked it carries no error. */
function dataOf<T>(response: GraphQLResponse<T>): T {
  expect(response.errors).toBeUndefined();
  return response.data as T;
}

const payee = (accountNumber: string) => ({
  name: `Mwila ${accountNumber}`,
  channel: 'MOBILE_MONEY',
  accountNumber,
});

describe('requestedByYou: whether the caller is the requester the gateway refuses as approver', () => {
  let stack: Stack;
  const ask = <T>(token: string | undefined, query: string, variables: Record<string, unknown> = {}) =>
    gql<T>(stack.graphqlUrl, query, variables, token ? bearer(token) : {});

  describe('with shared client tokens (no JWT sub to compare)', () => {
    beforeAll(async () => {
      stack = await startStack({ env: { ...approvalTokens(REQUESTER, APPROVER), PAYOUT_CONTROLS: CONTROLS } });
    });
    afterAll(() => stack.close());

    it('a held payout is the requester’s in every read, live and as an entity; the approver’s to approve', async () => {
      const input = mobileInput({ amount: '2500' });
      const { referenceId } = input;
      const created = dataOf(await ask<{ createMobileMoneyDisbursement: Held }>(REQUESTER, CREATE, { input }));
      expect(created.createMobileMoneyDisbursement).toMatchObject({
        status: 'AWAITING_APPROVAL',
        approval: { requestedByYou: true },
      });

      const one = (token: string) => ask<{ disbursement: Held }>(token, ONE, { referenceId });
      expect(dataOf(await one(REQUESTER)).disbursement.approval).toEqual({ requestedByYou: true });
      expect(dataOf(await one(APPROVER)).disbursement.approval).toEqual({ requestedByYou: false });

      const queued = async (token: string) =>
        dataOf(await ask<{ disbursementHistory: { edges: { node: Held }[] } }>(token, QUEUE))
          .disbursementHistory.edges.map((edge) => edge.node)
          .find((node) => node.referenceId === referenceId)?.approval;
      expect(await queued(REQUESTER)).toEqual({ requestedByYou: true });
      expect(await queued(APPROVER)).toEqual({ requestedByYou: false });

      const entity = async (token: string) =>
        dataOf(
          await ask<{ _entities: { approval: Held['approval'] }[] }>(token, ENTITIES, {
            representations: [{ __typename: 'Disbursement', referenceId }],
          }),
        )._entities[0].approval;
      expect(await entity(REQUESTER)).toEqual({ requestedByYou: true });
      expect(await entity(APPROVER)).toEqual({ requestedByYou: false });

      const watched = async (token: string) => {
        const client = wsClient(stack.graphqlUrl, bearer(token));
        try {
          const sub = subscribe<{ disbursementUpdated: Held }>(client, WATCH, { referenceId });
          const [first] = await sub.waitFor(1);
          sub.dispose();
          return first.disbursementUpdated.approval;
        } finally {
          await client.dispose();
        }
      };
      expect(await watched(REQUESTER)).toEqual({ requestedByYou: true });
      expect(await watched(APPROVER)).toEqual({ requestedByYou: false });

      const approved = dataOf(await ask<{ approveDisbursement: Held }>(APPROVER, APPROVE, { referenceId }));
      expect(approved.approveDisbursement.approval).toMatchObject({ requestedByYou: false });
    });

    it("a beneficiary's change is its latest changer's, whoever created it", async () => {
      const added = dataOf(
        await ask<{ createBeneficiary: BeneficiaryRead }>(REQUESTER, ADD, { input: payee('260971230001') }),
      ).createBeneficiary;
      expect(added).toMatchObject({ status: 'AWAITING_APPROVAL', requestedByYou: true });
      const { id } = added;

      const read = (token: string) => ask<{ beneficiary: BeneficiaryRead }>(token, READ, { id });
      expect(dataOf(await read(REQUESTER)).beneficiary.requestedByYou).toBe(true);
      expect(dataOf(await read(APPROVER)).beneficiary.requestedByYou).toBe(false);
      const listed = async (token: string) =>
        dataOf(
          await ask<{ beneficiaries: { edges: { node: { id: string; requestedByYou: boolean } }[] } }>(token, BOOK),
        ).beneficiaries.edges.find((edge) => edge.node.id === id)?.node.requestedByYou;
      expect(await listed(REQUESTER)).toBe(true);
      expect(await listed(APPROVER)).toBe(false);
      const entity = async (token: string) =>
        dataOf(
          await ask<{ _entities: { requestedByYou: boolean }[] }>(token, ENTITIES, {
            representations: [{ __typename: 'Beneficiary', id }],
          }),
        )._entities[0].requestedByYou;
      expect(await entity(REQUESTER)).toBe(true);
      expect(await entity(APPROVER)).toBe(false);

      const approved = dataOf(
        await ask<{ approveBeneficiary: BeneficiaryRead }>(APPROVER, APPROVE_BENEFICIARY, {
          id,
          expectedDetails: added.detailsFingerprint,
        }),
      ).approveBeneficiary;
      expect(approved).toMatchObject({ status: 'ACTIVE', requestedByYou: false });

      // The approver changes the number: now theirs to wait on, and the creator's to approve.
      const changed = dataOf(
        await ask<{ updateBeneficiary: BeneficiaryRead }>(APPROVER, CHANGE, { id, input: payee('260971230002') }),
      ).updateBeneficiary;
      expect(changed).toMatchObject({ status: 'AWAITING_APPROVAL', requestedByYou: true });
      expect(dataOf(await read(REQUESTER)).beneficiary.requestedByYou).toBe(false);
      const reapproved = await ask<{ approveBeneficiary: BeneficiaryRead }>(REQUESTER, APPROVE_BENEFICIARY, {
        id,
        expectedDetails: changed.detailsFingerprint,
      });
      expect(dataOf(reapproved).approveBeneficiary.status).toBe('ACTIVE');
    });
  });

  describe('under open access (every caller is the one anonymous actor)', () => {
    beforeAll(async () => {
      stack = await startStack({ env: { PAYOUT_CONTROLS: CONTROLS } });
    });
    afterAll(() => stack.close());

    it('every held payout and beneficiary change is requestedByYou, as the gateway refuses their approval', async () => {
      const input = mobileInput({ amount: '2500' });
      const { referenceId } = input;
      dataOf(await ask(undefined, CREATE, { input }));
      expect(dataOf(await ask<{ disbursement: Held }>(undefined, ONE, { referenceId })).disbursement.approval).toEqual({
        requestedByYou: true,
      });
      const refused = await ask(undefined, APPROVE, { referenceId });
      expect(refused.errors?.[0].extensions?.code).toBe('FORBIDDEN');

      const added = dataOf(
        await ask<{ createBeneficiary: BeneficiaryRead }>(undefined, ADD, { input: payee('260971230003') }),
      ).createBeneficiary;
      expect(dataOf(await ask<{ beneficiary: BeneficiaryRead }>(undefined, READ, { id: added.id }))).toMatchObject({
        beneficiary: { status: 'AWAITING_APPROVAL', requestedByYou: true },
      });
      const own = await ask(undefined, APPROVE_BENEFICIARY, {
        id: added.id,
        expectedDetails: added.detailsFingerprint,
      });
      expect(own.errors?.[0].extensions?.code).toBe('FORBIDDEN');
    });
  });
});
