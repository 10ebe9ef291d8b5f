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
