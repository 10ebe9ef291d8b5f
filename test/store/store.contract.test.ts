import { describeEngines } from '../support/engines';
import { storeContract } from './store.contract';

describeEngines('DisbursementStore', storeContract);
