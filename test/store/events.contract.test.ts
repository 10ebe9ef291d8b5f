import { describeEngines } from '../support/engines';
import { eventsContract } from './events.contract';

describeEngines('DisbursementEvents', eventsContract);
