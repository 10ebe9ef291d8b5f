import { isPlainObject, type Validated } from './sandbox.validation';

/** Faults injected into create requests that passed every check; one at most per request. */
export interface FaultSettings {
  /** Added to every create answer, on top of the sandbox's own latency. */
  latencyMs?: number;
  /** Every create is taken in only after this long: until then check-status answers 404 and nothing is answered. */
  intakeMs?: number;
  /** Share answered 500 at once: nothing stored, unless intakeMs is set, when it is taken in that long after all the same. */
  errorRate?: number;
  /** Share stored, then the socket is destroyed without an answer. */
  resetRate?: number;
  /** Share stored, then never answered until close(). */
  hangRate?: number;
  /** Share stored, then answered 200 with a truncated JSON body. */
  malformedRate?: number;
  /** Share stored, then answered with headers at once and the body trickled over several seconds. */
  slowBodyRate?: number;
  /** Share never stored and never answered until close(), like a create lost on its way (accounts ending in 410). */
  vanishRate?: number;
  /** Every create's record echoes the request's headers and callback address in `message`, as some providers do (like accounts ending in 999). */
  echo?: boolean;
  /** A create for a referenceId the sandbox holds or is taking in is paid again instead of refused; check-status keeps answering the first record. */
  payDuplicates?: boolean;
  /** Payouts that settle while it is set settle without a callback, as when a provider's webhooks are down. */
  dropCallbacks?: boolean;
}

export type Fault = 'error' | 'reset' | 'hang' | 'malformed' | 'slowBody' | 'vanish';

type Duration = 'latencyMs' | 'intakeMs';
const DURATIONS: readonly Duration[] = ['latencyMs', 'intakeMs'];

type Switch = 'echo' | 'payDuplicates' | 'dropCallbacks';
const SWITCHES: readonly Switch[] = ['echo', 'payDuplicates', 'dropCallbacks'];

const RATES: ReadonlyArray<readonly [Exclude<keyof FaultSettings, Duration | Switch>, Fault]> = [
  ['errorRate', 'error'],
  ['resetRate', 'reset'],
  ['hangRate', 'hang'],
  ['malformedRate', 'malformed'],
  ['slowBodyRate', 'slowBody'],
  ['vanishRate', 'vanish'],
];

/** Picks at most one fault; the rates are stacked on one draw, so they add up to the chance of any fault. */
export function chooseFault(settings: FaultSettings, random: () => number = Math.random): Fault | undefined {
  const draw = random();
  let threshold = 0;
  for (const [rate, fault] of RATES) {
    threshold += settings[rate] ?? 0;
    if (draw < threshold) return fault;
  }
  return undefined;
}

/** Checks a FaultSettings body sent to PUT /__sandbox/faults; unknown keys are refused to catch typos. */
export function parseFaultSettings(body: unknown): Validated<FaultSettings> {
  if (!isPlainObject(body)) return { ok: false, error: { message: 'Request body must be a JSON object' } };
  const settings: FaultSettings = {};
  for (const [key, value] of Object.entries(body)) {
    const duration = DURATIONS.find((name) => name === key);
    if (duration) {
      if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
        return { ok: false, error: { field: key, message: `${key} must be a non-negative number` } };
      }
      settings[duration] = value;
      continue;
    }
    const flag = SWITCHES.find((name) => name === key);
    if (flag) {
      if (typeof value !== 'boolean')
        return { ok: false, error: { field: key, message: `${key} must be true or false` } };
      settings[flag] = value;
      continue;
    }
    const rate = RATES.find(([name]) => name === key)?.[0];
    if (!rate) return { ok: false, error: { field: key, message: `${key} is not a fault setting` } };
    if (typeof value !== 'number' || !(value >= 0 && value <= 1)) {
      return { ok: false, error: { field: key, message: `${key} must be a number from 0 to 1` } };
    }
    settings[rate] = value;
  }
  return { ok: true, value: settings };
}
