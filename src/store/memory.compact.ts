import { Disbursement, DisbursementRequest, StatusEvent } from '../disbursements/disbursement.model';

/**
 * A settled record in the memory store as one short text: its values in a fixed order (no key
 * names), the request left out when it only repeats the record's own fields, history events as
 * tuples. About a third of the record's JSON, and one string instead of a dozen objects and
 * strings: a settled payout held costs a few hundred bytes. Fields this file does not know (added
 * to Disbursement later) are kept as they are, by name, so nothing is ever dropped.
 */

const FIELDS = [
  'merchantId',
  'referenceId',
  'channel',
  'request',
  'fingerprint',
  'requestId',
  'sending',
  'status',
  'providerStatus',
  'paymentType',
  'providerPaymentType',
  'message',
  'amount',
  'currency',
  'accountNumber',
  'narration',
  'identifier',
  'externalId',
  'ipAddress',
  'createdAt',
  'updatedAt',
  'version',
  'history',
  'deliveryIds',
  'nextCheckAt',
  'checkAttempts',
  'relay',
] as const satisfies readonly (keyof Disbursement)[];
const KNOWN: ReadonlySet<string> = new Set(FIELDS);
const EVENT_FIELDS: ReadonlySet<string> = new Set(['status', 'providerStatus', 'message', 'source', 'at']);
const REQUEST = FIELDS.indexOf('request');
const HISTORY = FIELDS.indexOf('history');
const EXTRAS = FIELDS.length;
/** In the request's place: the request is the record's own mobile money fields. */
const SAME_AS_RECORD = 0;

type Values = unknown[];
type Fields = Record<string, unknown>;

function isOwnMobileRequest(record: Disbursement, request: DisbursementRequest): boolean {
  if (request.channel !== 'MOBILE_MONEY') return false;
  let keys = 0;
  for (const key in request) if (request[key as keyof typeof request] !== undefined) keys += 1;
  return (
    keys === 5 + (request.narration === undefined ? 0 : 1) &&
    request.referenceId === record.referenceId &&
    request.amount === record.amount &&
    request.currency === record.currency &&
    request.accountNumber === record.accountNumber &&
    request.narration === record.narration
  );
}

function onlyKnownKeys(event: StatusEvent): boolean {
  for (const key in event) if (!EVENT_FIELDS.has(key)) return false;
  return true;
}

export function packRecord(record: Disbursement): string {
  const fields = record as unknown as Fields;
  const values: Values = FIELDS.map((name) => fields[name]);
  const { request } = record;
  if (request) values[REQUEST] = isOwnMobileRequest(record, request) ? SAME_AS_RECORD : request;
  values[HISTORY] = record.history.map((e) =>
    onlyKnownKeys(e) ? [e.status, e.providerStatus, e.message, e.source, e.at] : e,
  );
  let extras: Fields | undefined;
  for (const key in fields) {
    if (KNOWN.has(key) || fields[key] === undefined) continue;
    extras ??= {};
    extras[key] = fields[key];
  }
  if (extras) values[EXTRAS] = extras;
  return JSON.stringify(values);
}

const given = <T>(value: T | null): T | undefined => (value === null ? undefined : value);

function unpackEvent(value: unknown): StatusEvent {
  if (!Array.isArray(value)) return value as StatusEvent;
  const [status, providerStatus, message, source, at] = value as [
    StatusEvent['status'],
    string | null,
    string | null,
    StatusEvent['source'],
    string,
  ];
  const event: StatusEvent = { status, source, at };
  if (providerStatus !== null) event.providerStatus = providerStatus;
  if (message !== null) event.message = message;
  return event;
}

/** A new object each time (the reader's own copy); unset fields are absent, as JSON.parse gives them. */
export function unpackRecord(text: string): Disbursement {
  const values = JSON.parse(text) as Values;
  const record: Fields = {};
  for (let i = 0; i < FIELDS.length; i += 1)
    if (values[i] !== null && values[i] !== undefined) record[FIELDS[i]] = values[i];
  if (values[REQUEST] === SAME_AS_RECORD) {
    record.request = {
      channel: 'MOBILE_MONEY',
      referenceId: record.referenceId,
      amount: record.amount,
      currency: record.currency,
      accountNumber: record.accountNumber,
      ...(record.narration === undefined ? {} : { narration: record.narration }),
    };
  }
  record.history = (values[HISTORY] as unknown[]).map(unpackEvent);
  const extras = given(values[EXTRAS] as Fields | null | undefined);
  if (extras) Object.assign(record, extras);
  return record as unknown as Disbursement;
}
