import { ProviderRecord } from '../disbursements/disbursement.model';

const REDACTED = '[redacted]';

/**
 * Removes every secret the gateway holds (merchant keys, client tokens, webhook and relay secrets,
 * callback path tokens) from text that comes from the provider, at the door: create and
 * check-status answers, callbacks and error bodies are scrubbed before anything else reads them,
 * so the store, events, history, relays and logs never see a secret a provider echoed back.
 */
export class SecretScrubber {
  private readonly secrets: string[];

  constructor(secrets: Iterable<string>) {
    const forms = new Set<string>();
    for (const secret of secrets) {
      if (!secret) continue;
      forms.add(secret);
      // An echoed URL or header may carry the secret percent-encoded.
      forms.add(encodeURIComponent(secret));
    }
    // Longest first, so a secret that contains another is removed whole.
    this.secrets = [...forms].sort((a, b) => b.length - a.length);
  }

  text(value: string): string;
  text(value: string | undefined): string | undefined;
  text(value: string | undefined): string | undefined {
    if (value === undefined) return undefined;
    let scrubbed = value;
    for (const secret of this.secrets) if (scrubbed.includes(secret)) scrubbed = scrubbed.split(secret).join(REDACTED);
    return scrubbed;
  }

  /** Every text field but `referenceId`, which must match what the gateway sent or stores, and so is no echo. */
  record(record: ProviderRecord): ProviderRecord {
    return {
      ...record,
      providerStatus: this.text(record.providerStatus),
      providerPaymentType: this.text(record.providerPaymentType),
      currency: this.text(record.currency),
      accountNumber: this.text(record.accountNumber),
      narration: this.text(record.narration),
      identifier: this.text(record.identifier),
      externalId: this.text(record.externalId),
      ipAddress: this.text(record.ipAddress),
      createdAt: this.text(record.createdAt),
      message: this.text(record.message),
    };
  }
}
