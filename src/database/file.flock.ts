import koffi from 'koffi';

/** <sys/file.h>: the same values on Linux, macOS and the BSDs. */
const LOCK_EX = 2;
const LOCK_NB = 4;

type Flock = (fd: number, operation: number) => number;
let flock: Flock | undefined;

/**
 * libc's own flock(2), called through koffi (a prebuilt Node-API binary, so nothing is compiled at
 * install and one binary serves every Node line), found among the symbols the node process already
 * links. Bound on first use: a gateway on PostgreSQL never loads it.
 */
function libcFlock(): Flock {
  flock ??= koffi.load(null).func('int flock(int fd, int operation)') as Flock;
  return flock;
}

/**
 * LOCK_EX|LOCK_NB on an open descriptor: true when taken, false when another open file description
 * holds it (EWOULDBLOCK, in this process or another). Any other failure throws, its errno named in
 * `code`, as node:fs names one.
 */
export function lockExclusive(fd: number): boolean {
  if (libcFlock()(fd, LOCK_EX | LOCK_NB) === 0) return true;
  const errno = koffi.errno();
  if (errno === koffi.os.errno.EWOULDBLOCK || errno === koffi.os.errno.EAGAIN) return false;
  const code = Object.entries(koffi.os.errno).find(([, value]) => value === errno)?.[0] ?? `errno ${errno}`;
  throw Object.assign(new Error(`flock(${fd}) failed: ${code}`), { code, errno });
}
