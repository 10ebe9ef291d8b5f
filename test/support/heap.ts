import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** The JS heap in use once garbage is collected: what a test's objects still hold. */
export function liveHeap(): number {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}
