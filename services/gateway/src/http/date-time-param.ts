import { badRequest } from './http-error.js';

/**
 * A `format: date-time` query parameter as a Date the services can store. RFC 3339 allows a leap
 * second (23:59:60, an invalid Date here) and year 0000 (before a protobuf Timestamp's range):
 * refused with 400 naming the field, never passed on (a peer call cannot encode them: a 500).
 */
export function dateTimeParam(value: string | undefined, field: string): Date | undefined {
  if (value === undefined) return undefined;
  const date = new Date(value);
  const year = date.getUTCFullYear();
  if (Number.isNaN(date.getTime()) || year < 1 || year > 9999) throw badRequest(`${field} must be a date-time between years 1 and 9999`);
  return date;
}
