import { requireIntInRange } from '@atelier/validation';

/** The overview's window: 1 h to 24 h. 24 h stays inside the shortest event retention (1 day). */
export const OVERVIEW_WINDOW_MINUTES = { min: 60, max: 1440 } as const;

/** The window's throughput buckets: at most 180 points per series, whatever the window. */
export interface OverviewBuckets {
  windowMinutes: number;
  /** 1 for windows up to 3 h, 5 up to 12 h, 15 beyond. */
  bucketMinutes: number;
  /** How many buckets, the last one holding now (so it is partial). */
  bucketCount: number;
}

/** Checks the requested window (INVALID_ARGUMENT naming window_minutes) and picks its buckets. */
export function overviewBuckets(windowMinutes: number): OverviewBuckets {
  requireIntInRange(windowMinutes, 'window_minutes', OVERVIEW_WINDOW_MINUTES.min, OVERVIEW_WINDOW_MINUTES.max);
  const bucketMinutes = windowMinutes <= 180 ? 1 : windowMinutes <= 720 ? 5 : 15;
  // Rounded down: the buckets never reach further back than the window asked for.
  return { windowMinutes, bucketMinutes, bucketCount: Math.floor(windowMinutes / bucketMinutes) };
}
