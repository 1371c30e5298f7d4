import { doc, int } from '@atelier/config';

/**
 * Of a service that deletes its part of accounts (jobs, media, community, webhooks): how long an
 * account deletion event a replica took may go without word from it before another replica gets
 * it — the time a replica killed mid-deletion holds the deletion up. A working replica says so
 * every third of it. Spread into the service's config spec.
 */
export const accountDeletionConfigSpec = {
  ACCOUNT_DELETION_ACK_WAIT_MS: doc(
    int({ default: 60_000, min: 1_000, max: 3_600_000 }),
    'account deletions: how long a replica killed mid-deletion holds one up before another replica resumes it',
  ),
} as const;

/** What the consumer's wiring reads of a service's configuration (tests leave the defaults out). */
export interface AccountDeletionConfig {
  NATS_STREAM_PREFIX: string;
  NATS_STREAM_REPLICAS?: number;
  ACCOUNT_DELETION_ACK_WAIT_MS?: number;
}
