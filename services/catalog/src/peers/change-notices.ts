import { hostname } from 'node:os';
import type { Logger } from '@atelier/logging';
import {
  catalogChangesSubject,
  openNatsLink,
  publishCatalogChange,
  type CatalogChange,
  type NatsCredentials,
  type NatsLink,
} from '@atelier/nats';

/** Tells the catalog's readers (jobs' cache) that an entry changed; called after the change committed. */
export type AnnounceChange = (change: CatalogChange) => void;

export interface ChangeNotices {
  readonly announce: AnnounceChange;
  readonly link: NatsLink;
  close(): Promise<void>;
}

/**
 * The catalog's NATS link, for change notices only. Catalog starts and serves without the broker
 * (a notice is a doorbell; jobs' cache TTL bounds what a lost one costs), so the link is opened
 * without waiting and a notice that finds no connection is dropped with a debug line.
 */
export function openChangeNotices(
  config: { NATS_URL: string; NATS_STREAM_PREFIX: string } & NatsCredentials,
  logger: Logger,
  onStateChange?: (up: boolean) => void,
): ChangeNotices {
  const subject = catalogChangesSubject(config.NATS_STREAM_PREFIX);
  const link = openNatsLink({ servers: config.NATS_URL, name: `catalog@${hostname()}`, credentials: config, logger, onStateChange });
  return {
    link,
    announce(change) {
      if (!publishCatalogChange(link.connection(), subject, change))
        logger.debug({ change }, 'catalog change not announced: no NATS connection');
    },
    close: () => link.close(),
  };
}
