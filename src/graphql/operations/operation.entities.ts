import { FieldNode } from 'graphql';
import { GatewayError } from '../../disbursements/disbursement.errors';
import { tooManyRepresentations } from '../request.errors';
import { MAX_REFERENCE_IDS } from '../../disbursements/disbursement.ports';
import { representationsOf } from './operation.scopes';

/** Representations one operation may ask `_entities` for in all, whatever its aliases: as many ids as `disbursements(referenceIds:)` takes. */
const MAX_REPRESENTATIONS_PER_OPERATION = MAX_REFERENCE_IDS;

/**
 * Every transport's check, before any resolver runs: an operation whose `_entities` fields ask for
 * more than MAX_REPRESENTATIONS_PER_OPERATION representations in all is refused whole, so nothing
 * is read. Each representation is a read, bounded as a list of ids is, whatever carries it.
 */
export function entitiesRefusal(
  fields: readonly FieldNode[],
  variables: Readonly<Record<string, unknown>>,
): GatewayError | undefined {
  let count = 0;
  for (const field of fields) if (field.name.value === '_entities') count += representationsOf(field, variables).length;
  return count > MAX_REPRESENTATIONS_PER_OPERATION
    ? tooManyRepresentations(count, MAX_REPRESENTATIONS_PER_OPERATION)
    : undefined;
}
