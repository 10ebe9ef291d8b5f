/** One slot per API key and referenceId; JSON keeps any two pairs apart whatever characters they hold. */
const slotOf = (apiKey: string, referenceId: string): string => JSON.stringify([apiKey, referenceId]);

/**
 * Creates that have arrived but are not yet taken in, as a provider slow to take a create in holds
 * them: nothing is stored, so check-status answers 404, yet a repeat of the referenceId is one.
 */
export class Intakes {
  /** How many creates of each slot are being taken in. */
  private readonly pending = new Map<string, number>();

  has(apiKey: string, referenceId: string): boolean {
    return this.pending.has(slotOf(apiKey, referenceId));
  }

  /** Counts a create as being taken in; answers the function that ends it, to call as it is stored. */
  enter(apiKey: string, referenceId: string): () => void {
    const slot = slotOf(apiKey, referenceId);
    this.pending.set(slot, (this.pending.get(slot) ?? 0) + 1);
    return () => {
      const left = (this.pending.get(slot) ?? 0) - 1;
      if (left > 0) this.pending.set(slot, left);
      else this.pending.delete(slot);
    };
  }
}
