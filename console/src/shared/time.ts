/** A time as the person reads it, in their own locale and time zone. */
export function formatTime(iso: string | null | undefined): string {
  if (!iso) return '';
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleString();
}

const pad = (n: number) => String(n).padStart(2, '0');

/** The value a datetime-local input takes for a time, in the browser's zone. */
export function toLocalInput(date: Date): string {
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

/** The value a date input takes for a day, in the browser's zone. */
export function toDateInput(date: Date): string {
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}

/** A datetime-local or date input's value (the browser's zone) as ISO UTC; undefined when empty or not a time. */
export function fromLocalInput(value: string): string | undefined {
  if (!value) return undefined;
  const date = new Date(value.length === 10 ? `${value}T00:00` : value);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

/** Two date inputs' days (both included) as a window of ISO times: `to` is the start of the day after; undefined when either is not a day. */
export function dayWindow(first: string, last: string): { from: string; to: string } | undefined {
  const from = fromLocalInput(first);
  const end = fromLocalInput(last);
  if (!from || !end) return undefined;
  return { from, to: new Date(Date.parse(end) + 86_400_000).toISOString() };
}
