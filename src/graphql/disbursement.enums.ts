import { registerEnumType } from 'type-graphql';
import { DisbursementChannel, DisbursementStatus, EventSource, PaymentType } from '../disbursements/disbursement.model';

registerEnumType(DisbursementStatus, {
  name: 'DisbursementStatus',
  description: 'SUCCESSFUL, FAILED and CANCELLED are final. UNKNOWN: the provider may have the payout; the gateway is finding out.',
});
registerEnumType(DisbursementChannel, { name: 'DisbursementChannel' });
registerEnumType(PaymentType, { name: 'PaymentType', description: 'OTHER: a value the gateway does not know; see providerPaymentType.' });
registerEnumType(EventSource, { name: 'DisbursementEventSource', description: 'What told the gateway about a status.' });

export { DisbursementChannel, DisbursementStatus, EventSource, PaymentType };
