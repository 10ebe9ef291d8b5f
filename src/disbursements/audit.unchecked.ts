/**
 * What a verification could not check because the key that made it was not given: checkpoints
 * signed, or entries keyed, under a key the verifier lacks. Never counted as intact.
 */
export interface UncheckedRange {
  what: 'checkpoints' | 'entries';
  /** The key named; null for what was made before key ids were recorded (schema version 11). */
  keyId: string | null;
  /** The first and last sequence, and how many in between went unchecked. */
  from: number;
  to: number;
  count: number;
}

/**
 * Collects unchecked sequences into ranges, in the order added: entries in runs of consecutive
 * sequences under one key; checkpoints (sparse by nature) in runs under one key, with their count.
 */
export class UncheckedRanges {
  readonly ranges: UncheckedRange[] = [];

  add(what: UncheckedRange['what'], keyId: string | null, sequence: number): void {
    const last = this.ranges.findLast((r) => r.what === what);
    if (last && last.keyId === keyId && sequence === last.to) return; // the same, kept in two places
    const follows = what === 'checkpoints' ? sequence > (last?.to ?? 0) : sequence === (last?.to ?? 0) + 1;
    if (last && last.keyId === keyId && follows) {
      last.to = sequence;
      last.count += 1;
    } else this.ranges.push({ what, keyId, from: sequence, to: sequence, count: 1 });
  }
}

/** One line for people: `entries 1 to 7 keyed under key AbC…`, `the checkpoint at sequence 4 signed under …`. */
export function describeUnchecked(r: UncheckedRange): string {
  const key = r.keyId === null ? 'a key not named (before key ids were recorded)' : `key ${r.keyId}`;
  if (r.what === 'entries') {
    const span = r.from === r.to ? `entry ${r.from}` : `entries ${r.from} to ${r.to}`;
    return `the keyed values of ${span} (keyed under ${key})`;
  }
  const span =
    r.count === 1 ? `the checkpoint at sequence ${r.from}` : `${r.count} checkpoints at sequences ${r.from} to ${r.to}`;
  return `${span} (signed under ${key})`;
}
