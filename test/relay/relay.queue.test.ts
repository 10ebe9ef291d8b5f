import { describeEngines } from '../support/engines';
import { relayQueueContract } from './relay-queue.contract';

describeEngines('RelayQueue', relayQueueContract);
