import { DEFAULT_LOCALE, type Locale } from './locales.js';

/** Longer headers are not read: no client needs one, and parsing must stay cheap. */
const MAX_HEADER_CHARS = 1_000;
const RANGE = /^(?:\*|[a-zA-Z]{1,8}(?:-[a-zA-Z0-9]{1,8})*)$/;
const QUALITY = /^q=(0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$/i;

/**
 * Simplified Chinese: `zh` alone, `zh-Hans…`, or a region that writes it (CN, SG, MY).
 * Traditional (`zh-Hant`, `zh-TW`, `zh-HK`, `zh-MO`) is not Simplified: it falls through to
 * the next choice, or English.
 */
function localeOfRange(range: string): Locale | undefined {
  const subtags = range.toLowerCase().split('-');
  if (subtags[0] === 'en') return 'en';
  if (subtags[0] !== 'zh') return undefined;
  const rest = subtags.slice(1);
  if (rest.length === 0 || rest[0] === 'hans') return 'zh-CN';
  if (rest[0] === 'hant') return undefined;
  return ['cn', 'sg', 'my'].includes(rest[0]!) ? 'zh-CN' : undefined;
}

/**
 * The language to answer in, from an Accept-Language header (RFC 9110 §12.5.4): the supported
 * language of the highest-quality range, earlier ranges first on a tie; `q=0` means "not this".
 * A missing, empty, malformed or unmatched header is English — never an error: a malformed
 * element is skipped, the rest still count.
 */
export function negotiateLocale(header: string | string[] | undefined): Locale {
  const value = Array.isArray(header) ? header.join(',') : header;
  if (!value || value.length > MAX_HEADER_CHARS) return DEFAULT_LOCALE;
  let best: { locale: Locale; quality: number } | undefined;
  for (const element of value.split(',')) {
    const [rawRange, ...rawParams] = element.split(';').map((part) => part.trim());
    if (!rawRange || !RANGE.test(rawRange)) continue;
    let quality = 1;
    const q = rawParams.find((param) => /^q=/i.test(param));
    if (q !== undefined) {
      const match = QUALITY.exec(q);
      if (!match) continue;
      quality = Number(match[1]);
    }
    if (quality <= 0) continue;
    const locale = rawRange === '*' ? DEFAULT_LOCALE : localeOfRange(rawRange);
    if (locale && (!best || quality > best.quality)) best = { locale, quality };
  }
  return best?.locale ?? DEFAULT_LOCALE;
}
