import { PubSubEvents } from '../../src/events/pubsub.events';
import { eventsContract } from './events.contract';

eventsContract('in-process', async () => {
  const events = new PubSubEvents();
  // In process a watcher listens as soon as it starts.
  return { events, listening: async () => undefined, cleanup: () => events.close() };
});
