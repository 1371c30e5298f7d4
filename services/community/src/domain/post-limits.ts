import { ResourceExhaustedError, secondsToNextUtcDay } from '@atelier/errors';

/** The per-author limit on new posts (POSTS_DAILY_LIMIT, docs/configuration.md). */
export interface PostLimits {
  /** Posts (drafts included) an author may create per UTC day (POSTS_DAILY_LIMIT). */
  postsPerDay: number;
}

/** Far above what a person writes in a day; low enough to stop a script flooding the feed. */
export const DEFAULT_POST_LIMITS: PostLimits = { postsPerDay: 200 };

/** Refuses a new post once the author created postsPerDay since 00:00 UTC (deleted ones count). */
export function checkPostLimits(createdToday: number, limits: PostLimits, now: Date): void {
  if (createdToday >= limits.postsPerDay) {
    throw new ResourceExhaustedError(
      'POST_QUOTA_EXCEEDED',
      `daily limit of ${limits.postsPerDay} posts reached; it resets at 00:00 UTC`,
      secondsToNextUtcDay(now),
      { params: { limit: limits.postsPerDay } },
    );
  }
}
