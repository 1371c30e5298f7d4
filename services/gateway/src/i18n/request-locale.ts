import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Locale } from './locales.js';
import { negotiateLocale } from './negotiate-locale.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The language this request is answered in (negotiateLocale of its Accept-Language). */
    locale?: Locale;
  }
}

/** The language a request is answered in; negotiated once, on first use or by the hook below. */
export function localeOf(request: FastifyRequest): Locale {
  request.locale ??= negotiateLocale(request.headers['accept-language']);
  return request.locale;
}

/**
 * The onRequest hook: every answer says its language (`Content-Language`), and that it depends
 * on the request's Accept-Language (`Vary`, for caches between the app and us). Streams that
 * write their own head copy both (languageHeaders).
 */
export async function negotiateLanguage(request: FastifyRequest, reply: FastifyReply): Promise<void> {
  for (const [name, value] of Object.entries(languageHeaders(localeOf(request)))) reply.header(name, value);
}

export function languageHeaders(locale: Locale): Record<string, string> {
  return { 'content-language': locale, vary: 'Accept-Language' };
}
