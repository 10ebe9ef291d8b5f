import { ProviderRecord } from '../disbursements/disbursement.model';
import { redactSecrets, SecretList } from '../observability/secret.redaction';

/**
 * Removes every secret the gateway holds (each kind src/config.secrets.ts declares) from text that
 * comes from the provider, at the door: create and
 * check-status answers, callbacks and error bodies are scrubbed before anything else reads them,
 * so the store, events, history, relays and logs never see a secret a provider echoed back.
 */
export class SecretScrubber {
  private readonly secrets: SecretList;

  /** A SecretList is read as it grows (a reload adds to it); any other list is copied. */
  constructor(secrets: SecretList | Iterable<string>) {
    this.secrets = secrets instanceof SecretList ? secrets : new SecretList(secrets);
  }

  text(value: string): string;
  text(value: string | undefined): string | undefined;
  text(value: string | undefined): string | undefined {
    return value === undefined ? undefined : redactSecrets(value, this.secrets.forms());
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
