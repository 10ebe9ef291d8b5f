import { MemoryStore } from '../../src/store/memory.store';
import { storeContract } from './store.contract';

storeContract('memory', async () => {
  const store = new MemoryStore();
  return { store, cleanup: () => store.close() };
});
