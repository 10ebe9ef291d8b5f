import {
  DocumentNode,
  FieldNode,
  FragmentDefinitionNode,
  Kind,
  OperationDefinitionNode,
  OperationTypeNode,
  SelectionSetNode,
  valueFromASTUntyped,
} from 'graphql';
import { Scope, SCOPES } from '../../auth/client.auth';
import { forbidden, GatewayError } from '../../disbursements/disbursement.errors';

/** Root fields of an operation, through fragments; @skip/@include are ignored, so checks err strict. */
export function rootFields(operation: OperationDefinitionNode, document: DocumentNode): FieldNode[] {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
  const names: FieldNode[] = [];
  const seen = new Set<string>();
  const walk = (set: SelectionSetNode) => {
    for (const s of set.selections) {
      if (s.kind === Kind.FIELD) names.push(s);
      else if (s.kind === Kind.INLINE_FRAGMENT) walk(s.selectionSet);
      else if (!seen.has(s.name.value)) {
        seen.add(s.name.value);
        const fragment = fragments.get(s.name.value);
        if (fragment) walk(fragment.selectionSet);
      }
    }
  };
  walk(operation.selectionSet);
  return names;
}

/** Mutations of the payout controls: deciding needs payouts:approve; withdrawing, either (the requester writes). */
const CONTROL_MUTATIONS: Readonly<Record<string, readonly Scope[]>> = {
  approveDisbursement: [SCOPES.approve],
  approveDisbursements: [SCOPES.approve],
  rejectDisbursement: [SCOPES.approve],
  cancelDisbursement: [SCOPES.write, SCOPES.approve],
  approveBeneficiary: [SCOPES.approve],
};

/** The beneficiary book: reading it beneficiaries:read, changing it beneficiaries:write (paying one is a payout: payouts:write). */
const BENEFICIARY_FIELDS: Readonly<Record<string, readonly Scope[]>> = {
  beneficiary: [SCOPES.beneficiariesRead],
  beneficiaries: [SCOPES.beneficiariesRead],
  createBeneficiary: [SCOPES.beneficiariesWrite],
  updateBeneficiary: [SCOPES.beneficiariesWrite],
  archiveBeneficiary: [SCOPES.beneficiariesWrite],
};

/** The entities a router asks `_entities` for, each under the scopes of its own query field. */
const ENTITY_SCOPES: Readonly<Record<string, readonly Scope[]>> = {
  Disbursement: [SCOPES.read],
  Beneficiary: [SCOPES.beneficiariesRead],
};

type Variables = Readonly<Record<string, unknown>> | null | undefined;

/**
 * The representations an `_entities` field asks for, from its literal or its variables (as coerced:
 * defaults included, operation.checks.ts); one value stands for a list of one, as GraphQL coerces it.
 */
export function representationsOf(field: FieldNode, variables: Variables): unknown[] {
  const argument = field.arguments?.find((a) => a.name.value === 'representations');
  const value: unknown = argument ? valueFromASTUntyped(argument.value, variables ?? undefined) : undefined;
  if (value === undefined || value === null) return [];
  return Array.isArray(value) ? value : [value];
}

/** The scopes of the `__typename`s an `_entities` field asks for; payouts:read for anything else. */
function entityScopes(field: FieldNode, variables: Variables): (readonly Scope[])[] {
  const typenames = new Set(
    representationsOf(field, variables).map((r) => (r as { __typename?: unknown } | null)?.__typename),
  );
  return [...typenames].map((t) =>
    typeof t === 'string' && Object.hasOwn(ENTITY_SCOPES, t) ? ENTITY_SCOPES[t] : [SCOPES.read],
  );
}

/** The audit trail and reconciliation, query and mutation alike: audit:read. */
const AUDIT_FIELDS: ReadonlySet<string> = new Set([
  'auditTrail',
  'auditCheckpoints',
  'auditVerification',
  'reconciliationRun',
  'startReconciliation',
]);

/**
 * The scopes a root field accepts (any one suffices): the audit trail and reconciliation
 * audit:read, the beneficiary book beneficiaries:read or :write, the payout controls' decisions
 * (approveBeneficiary too) payouts:approve, every other Mutation field (payBeneficiary too)
 * payouts:write, every other Query and Subscription field payouts:read. Deciding by root type
 * means a field added later is never left open. Introspection (`__schema`, `__type`,
 * `__typename`) and the subgraph's `_service` need none; `_entities` the scopes of each type it
 * asks for (entityScopes).
 */
function scopesFor(operation: OperationDefinitionNode['operation'], field: string): readonly Scope[] {
  if (field.startsWith('__') || field === '_service') return [];
  if (AUDIT_FIELDS.has(field)) return [SCOPES.audit];
  if (Object.hasOwn(BENEFICIARY_FIELDS, field)) return BENEFICIARY_FIELDS[field];
  if (operation !== OperationTypeNode.MUTATION) return [SCOPES.read];
  return Object.hasOwn(CONTROL_MUTATIONS, field) ? CONTROL_MUTATIONS[field] : [SCOPES.write];
}

/**
 * The one scope check, for both transports, once the operation is resolved and before execution:
 * a refusal naming the first missing scope, or undefined.
 */
export function scopeRefusal(
  operation: OperationDefinitionNode,
  fields: readonly FieldNode[],
  scopes: ReadonlySet<string>,
  variables: Variables,
): GatewayError | undefined {
  for (const node of fields) {
    const field = node.name.value;
    const needs = field === '_entities' ? entityScopes(node, variables) : [scopesFor(operation.operation, field)];
    for (const accepted of needs) {
      if (accepted.length > 0 && !accepted.some((scope) => scopes.has(scope))) {
        return forbidden(`This token lacks the scope ${accepted.join(' or ')}, which ${field} needs`);
      }
    }
  }
  return undefined;
}
