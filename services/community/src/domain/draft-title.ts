import { MAX_POST_TITLE_LENGTH } from '@atelier/validation';

/**
 * The title a one-tap draft gets when the author gives none: named after the job's style
 * ("My comic creation"), or generic for jobs without one. Style codes are slugs, so dashes
 * and underscores read as spaces; the result always fits the title limit.
 */
export function defaultDraftTitle(styleCode: string | undefined): string {
  const style = (styleCode ?? '').replace(/[-_]+/g, ' ').replace(/\s+/g, ' ').trim();
  const title = style ? `My ${style} creation` : 'My AI creation';
  return title.length <= MAX_POST_TITLE_LENGTH ? title : title.slice(0, MAX_POST_TITLE_LENGTH).trimEnd();
}
