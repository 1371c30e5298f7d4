/** How much of a vendor's error text is kept in job records and logs. */
export const VENDOR_TEXT_MAX_CHARS = 500;

const REDACTED = '[redacted]';

// A URL with a query string: presigned URLs carry their signature there.
const URL_WITH_QUERY = /\bhttps?:\/\/[^\s"'<>?]+\?[^\s"'<>]*/gi;
// Signature and credential parameters or fields, wherever they appear (key=value, "key":"value").
const SECRET_FIELD =
  /\b(x-amz-[a-z-]*|signature|sig|token|access_token|api[_-]?key|apikey|password|secret|credential|authorization|key-pair-id|policy)("?\s*[:=]\s*"?)([^\s"&,;}]+)/gi;
const BEARER = /\b(bearer|basic)\s+[a-z0-9._~+/=-]+/gi;
// Long opaque runs (hex, base64, JWT segments) look like tokens or signatures.
const OPAQUE = /\b[a-z0-9+/_=.-]{40,}\b/gi;

/**
 * A vendor's text (an error body, a prediction's error message) made fit to store and log:
 * URLs with a query string lose the query, anything that looks like a signature, token or key
 * is replaced, the job's prompts (vendors echo them) are replaced, and the result is cut to
 * VENDOR_TEXT_MAX_CHARS. Redaction runs before the cut, so a secret cut in half is not kept.
 */
export function redactVendorText(text: string, secrets: readonly (string | undefined)[] = [], maxChars = VENDOR_TEXT_MAX_CHARS): string {
  let redacted = text;
  for (const secret of secrets) {
    if (secret && secret.trim().length >= 3) redacted = redacted.split(secret).join('[prompt]');
  }
  redacted = redacted
    .replace(URL_WITH_QUERY, (url) => `${url.slice(0, url.indexOf('?'))}?${REDACTED}`)
    .replace(BEARER, (_match, scheme: string) => `${scheme} ${REDACTED}`)
    .replace(SECRET_FIELD, (_match, key: string, separator: string) => `${key}${separator}${REDACTED}`)
    .replace(OPAQUE, REDACTED);
  return redacted.length > maxChars ? `${redacted.slice(0, maxChars)}… (${redacted.length - maxChars} more characters)` : redacted;
}
