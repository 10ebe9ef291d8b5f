import { FieldNode, Kind, OperationDefinitionNode, OperationTypeNode, ValueNode } from 'graphql';
import { ClientRateLimit } from '../../auth/client.rate-limit';
import { MAX_BATCH_ITEMS } from '../../disbursements/disbursement.batch';
import { GatewayError } from '../../disbursements/disbursement.errors';
import { clientRateLimited, tooManyPayouts } from '../request.errors';

/** Payouts one operation may carry in all, whatever its aliases: the size of one batch. */
export const MAX_PAYOUTS_PER_OPERATION = MAX_BATCH_ITEMS;

/** Mutations that create payouts (payments to beneficiaries too): single ones carry one, batches one per item of `inputs`. */
const CREATES = /^(?:create\w*Disbursement(s?)|payBeneficiar(y|ies))$/;

/** Items of a list argument: a literal list, a variable's list, or (GraphQL's input coercion) one value. */
function itemsOf(value: ValueNode | undefined, variables: Readonly<Record<string, unknown>>): number {
  if (!value || value.kind === Kind.NULL) return 0;
  if (value.kind === Kind.LIST) return value.values.length;
  if (value.kind === Kind.VARIABLE) {
    const given = variables[value.name.value];
    if (given === null || given === undefined) return 0;
    return Array.isArray(given) ? given.length : 1;
  }
  return 1;
}

/** How many payouts the resolved operation asks to create, across all aliases and fragments, and the arguments that carry them. */
export function payoutItems(
  operation: OperationDefinitionNode,
  rootFields: readonly FieldNode[],
  variables: Readonly<Record<string, unknown>> = {},
): { count: number; creates: number; fields: string[] } {
  if (operation.operation !== OperationTypeNode.MUTATION) return { count: 0, creates: 0, fields: [] };
  let count = 0;
  let creates = 0;
  const fields = new Set<string>();
  for (const field of rootFields) {
    const create = CREATES.exec(field.name.value);
    if (!create) continue;
    creates += 1;
    const batch = create[1] === 's' || create[2] === 'ies';
    const argument = batch ? 'inputs' : 'input';
    fields.add(argument);
    count += batch ? itemsOf(field.arguments?.find((a) => a.name.value === argument)?.value, variables) : 1;
  }
  return { count, creates, fields: [...fields] };
}

/**
 * The payout check of both transports, after validation and before any resolver: an operation
 * over MAX_PAYOUTS_PER_OPERATION is refused whole, and every payout item counts one against the
 * client's quota. The operation itself has already counted one, so a single create costs one.
 */
export async function payoutRefusal(
  rateLimit: ClientRateLimit,
  quotaKey: string,
  operation: OperationDefinitionNode,
  rootFields: readonly FieldNode[],
  variables: Readonly<Record<string, unknown>> | undefined,
): Promise<GatewayError | undefined> {
  const { count, creates, fields } = payoutItems(operation, rootFields, variables ?? {});
  if (count > MAX_PAYOUTS_PER_OPERATION) {
    // One batch alone is refused whole by its own resolver (as a result, on every transport); several together here.
    return creates > 1 ? tooManyPayouts(count, MAX_PAYOUTS_PER_OPERATION, fields) : undefined;
  }
  if (count <= 1) return undefined;
  const retryAfter = await rateLimit.retryAfter(quotaKey, count - 1);
  return retryAfter === undefined ? undefined : clientRateLimited(retryAfter, 'payouts');
}
