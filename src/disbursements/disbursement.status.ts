import { visiblyDiffers } from './disbursement.fields';
import { Disbursement, DisbursementStatus, EventSource, isFinal, isUnsent, ProviderRecord } from './disbursement.model';
import { changed } from './disbursement.record';

/** webhook-ids remembered per record; redeliveries come within minutes, not after dozens of others. */
const REMEMBERED_DELIVERIES = 20;

export interface StatusUpdate {
  record: ProviderRecord;
  source: EventSource;
  at: string;
  /** The callback's webhook-id, when it came from a signed delivery. */
  deliveryId?: string;
}

/** Which status wins: final states are final, PENDING never overwrites them, an unrecognised status changes nothing. */
function nextStatus(current: DisbursementStatus, incoming: DisbursementStatus): DisbursementStatus {
  if (isFinal(current)) return current;
  if (incoming === 'UNKNOWN') return current;
  return incoming;
}

/**
 * Applies what the provider said to the stored record.
 * Returns the new record, or undefined when nothing a user could see changed,
 * so repeated, stale and reordered deliveries publish nothing.
 */
export function applyStatusUpdate(current: Disbursement, update: StatusUpdate): Disbursement | undefined {
  const { record: incoming, source, at, deliveryId } = update;
  // The provider was never sent a payout awaiting approval or its time: nothing it says about that referenceId is about this one.
  if (isUnsent(current)) return undefined;
  if (deliveryId && current.deliveryIds.includes(deliveryId)) return undefined;

  const status = nextStatus(current.status, incoming.status);
  const statusChanged = status !== current.status;
  const next: Disbursement = {
    ...current,
    status,
    // Once final, the record keeps the message and raw status of the update that made it final.
    providerStatus: isFinal(current.status) ? current.providerStatus : incoming.providerStatus,
    message: statusChanged ? incoming.message : current.message,
    identifier: current.identifier ?? incoming.identifier,
    externalId: current.externalId ?? incoming.externalId,
    ipAddress: current.ipAddress ?? incoming.ipAddress,
    createdAt: current.createdAt ?? incoming.createdAt,
    narration: current.narration ?? incoming.narration,
    // The operator is known only once the provider has answered.
    ...(current.providerPaymentType === undefined && incoming.providerPaymentType !== undefined
      ? { paymentType: incoming.paymentType, providerPaymentType: incoming.providerPaymentType }
      : {}),
  };
  if (!visiblyDiffers(next, current)) return undefined;

  if (statusChanged) {
    // The create's own answer is the requester's doing, unless a second person approved it (their event says so).
    const actor = source === 'CREATE' && !current.approval ? current.createdBy : undefined;
    next.history = [
      ...current.history,
      {
        status,
        providerStatus: incoming.providerStatus,
        message: incoming.message,
        source,
        at,
        ...(actor && { actor }),
      },
    ];
  }
  if (deliveryId) next.deliveryIds = [...current.deliveryIds, deliveryId].slice(-REMEMBERED_DELIVERIES);
  return changed(current, next, at);
}
