import { useState } from 'react';
import { Field } from './field';
import { toDateInput } from './time';

/** Two date inputs' days, both included (the browser's zone). */
export interface DayRange {
  from: string;
  to: string;
}

/** A window of days a form asks about: today to today at first. */
export function useDayRange(): [DayRange, (range: DayRange) => void] {
  const today = toDateInput(new Date());
  return useState<DayRange>({ from: today, to: today });
}

/** The "From" and "To" day fields of a form; `id` keeps each form's pair apart on one screen. */
export function DayRangeFields({
  id,
  range,
  onChange,
}: {
  id: string;
  range: DayRange;
  onChange: (range: DayRange) => void;
}) {
  return (
    <>
      <Field
        id={`${id}-from`}
        label="From"
        type="date"
        value={range.from}
        onChange={(e) => onChange({ ...range, from: e.target.value })}
      />
      <Field
        id={`${id}-to`}
        label="To"
        type="date"
        value={range.to}
        onChange={(e) => onChange({ ...range, to: e.target.value })}
      />
    </>
  );
}
