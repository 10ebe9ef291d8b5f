import { createPubSub } from '@graphql-yoga/subscription';
import { setMaxListeners } from 'node:events';
import { Disbursement } from '../disbursements/disbursement.model';
import { DisbursementEvents } from '../disbursements/disbursement.ports';
import { SpanKind, traced, tracingOn } from '../observability/tracing.spans';

type Topics = {
  /** id: `${merchantId}:${referenceId}`; one topic per payout so a change wakes only its watchers. */
  disbursement: [id: string, record: Disbursement];
  /** id: merchantId. */
  merchant: [id: string, record: Disbursement];
};

/** One listener per watcher of a topic: thousands on a merchant's stream are normal, not a leak. */
function unboundedTarget(): EventTarget {
  const target = new EventTarget();
  setMaxListeners(0, target);
  return target;
}

/** Changes heard in this process, over graphql-yoga's PubSub: the embedded file's events, and what PostgresEvents hands its watchers. */
export class PubSubEvents implements DisbursementEvents {
  private readonly pubSub: ReturnType<typeof createPubSub<Topics>>;

  constructor(config: Parameters<typeof createPubSub<Topics>>[0] = undefined) {
    this.pubSub = createPubSub<Topics>(config ?? { eventTarget: unboundedTarget() });
  }

  async publish(record: Disbursement): Promise<void> {
    if (!tracingOn()) return this.send(record);
    const attributes = {
      'merchant.id': record.merchantId,
      'payout.reference_id': record.referenceId,
      'payout.status': record.status,
    };
    return traced('publish disbursement', { kind: SpanKind.PRODUCER, attributes }, async () => this.send(record));
  }

  private send(record: Disbursement): void {
    this.pubSub.publish('disbursement', `${record.merchantId}:${record.referenceId}`, record);
    this.pubSub.publish('merchant', record.merchantId, record);
  }

  watch(merchantId: string, referenceId: string): AsyncIterable<Disbursement> {
    return this.pubSub.subscribe('disbursement', `${merchantId}:${referenceId}`);
  }

  /** In one process a started listener hears every later publish at once. */
  async listening(_merchantId: string, _referenceId: string): Promise<void> {}

  async merchantListening(_merchantId: string): Promise<void> {}

  watchMerchant(merchantId: string): AsyncIterable<Disbursement> {
    return this.pubSub.subscribe('merchant', merchantId);
  }

  /** In memory there is nothing that could be unreachable. */
  async healthy(): Promise<boolean> {
    return true;
  }

  async close(): Promise<void> {}
}
