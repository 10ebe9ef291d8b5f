import type { InputHTMLAttributes } from 'react';

/**
 * A labelled input; `invalid` when the gateway named it (extensions.fields), announced with the
 * error it belongs to.
 */
export function Field({
  id,
  label,
  hint,
  invalid,
  ...input
}: { id: string; label: string; hint?: string; invalid?: boolean } & InputHTMLAttributes<HTMLInputElement>) {
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        aria-invalid={invalid || undefined}
        aria-describedby={hint ? `${id}-hint` : undefined}
        {...input}
      />
      {hint && <small id={`${id}-hint`}>{hint}</small>}
    </div>
  );
}
