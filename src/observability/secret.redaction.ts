const REDACTED = '[redacted]';

/**
 * The texts to look for: each secret as written and percent-encoded (an echoed URL or header may
 * carry it so), longest first, so a secret that contains another is removed whole.
 */
export function secretForms(secrets: Iterable<string>): string[] {
  const forms = new Set<string>();
  for (const secret of secrets) {
    if (!secret) continue;
    forms.add(secret);
    forms.add(encodeURIComponent(secret));
  }
  return [...forms].sort((a, b) => b.length - a.length);
}

/** `text` with every form replaced by `[redacted]`; a text with none of them is returned as it is. */
export function redactSecrets(text: string, forms: readonly string[]): string {
  let redacted = text;
  for (const form of forms) if (redacted.includes(form)) redacted = redacted.split(form).join(REDACTED);
  return redacted;
}

/**
 * Every secret the gateway holds, shared by the logger and the scrubbers. A reload of
 * MERCHANTS_FILE adds the new ones before they are used; none is ever dropped, since an old key
 * may still be echoed back, and redacting it costs nothing.
 */
export class SecretList implements Iterable<string> {
  private readonly values = new Set<string>();
  private cachedForms: string[] | undefined;

  constructor(values: Iterable<string> = []) {
    this.add(values);
  }

  add(values: Iterable<string>): void {
    for (const value of values) {
      if (!value || this.values.has(value)) continue;
      this.values.add(value);
      this.cachedForms = undefined;
    }
  }

  /** secretForms of them all, computed again only after an addition. */
  forms(): readonly string[] {
    this.cachedForms ??= secretForms(this.values);
    return this.cachedForms;
  }

  [Symbol.iterator](): Iterator<string> {
    return this.values[Symbol.iterator]();
  }
}
