import { jobErrorReasonOf } from '@atelier/job-types';
import type { ApiErrorName } from '../http/error-codes.js';
import { API_ERROR_MESSAGES, REASON_MESSAGES } from './api-error-messages.js';
import { JOB_ERROR_MESSAGES } from './job-error-messages.js';
import type { Locale } from './locales.js';
import { canFill, formatMessage, type MessageParams } from './message-format.js';

/** What an error answer is made of, as far as its message goes. */
export interface ErrorMessageSource {
  apiError: ApiErrorName;
  /** The service's stable reason, when it gave one. */
  reason?: string | undefined;
  /** The values the service's message was made from (AppError.params). */
  params?: MessageParams | undefined;
  /** The message as the gateway or the service wrote it, in English. */
  message: string;
}

/**
 * An error's message in `locale`. English is the message as written (it is the most precise:
 * services name the field and the value at fault). Another language takes the reason's own
 * message when its params fill it (`REASON:variant` first), else the API error's, which may
 * quote the English message as `{detail}`. The code and name of the answer never change.
 */
export function localizedErrorMessage(source: ErrorMessageSource, locale: Locale): string {
  if (locale === 'en') return source.message;
  const params = source.params ?? {};
  if (source.reason) {
    const variant = typeof params.variant === 'string' ? REASON_MESSAGES[`${source.reason}:${params.variant}`] : undefined;
    for (const entry of [variant, REASON_MESSAGES[source.reason]]) {
      if (entry && canFill(entry[locale], params)) return formatMessage(entry[locale], params);
    }
  }
  return formatMessage(API_ERROR_MESSAGES[source.apiError][locale], { detail: source.message });
}

/** The parts of a job view its error message is rendered from (see JOB_ERROR_MESSAGES). */
export interface JobErrorView {
  status: string;
  attempts: { count: number; max: number };
  error: { code: string; message: string } | null;
  createdAt: string | null;
  startDeadlineAt: string | null;
}

/** A job view with its error message in `locale`; English views (what jobs stored) as they are. */
export function localizedJobView<T extends JobErrorView>(view: T, locale: Locale): T {
  if (locale === 'en' || !view.error) return view;
  const reason = jobErrorReasonOf(view.error.code, view.status);
  const seconds =
    view.startDeadlineAt && view.createdAt ? Math.round((Date.parse(view.startDeadlineAt) - Date.parse(view.createdAt)) / 1000) : '?';
  const params = { attempt: view.attempts.count, maxAttempts: view.attempts.max, code: view.error.code, seconds };
  return { ...view, error: { ...view.error, message: formatMessage(JOB_ERROR_MESSAGES[reason][locale], params) } };
}
