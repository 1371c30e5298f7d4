import type { Logger } from '@atelier/logging';
import { catalogChangesSubject, parseCatalogChange, type NatsConnection } from '@atelier/nats';
import type { CatalogCache } from '../peers/catalog-cache.js';

/**
 * Drops cached catalog entries as catalog announces their changes. The subscription is core
 * NATS: nats.js renews it on every reconnection by itself, so one per connection is enough;
 * `follow` is safe to call again on every (re)connection. Notices missed while disconnected are
 * covered by the caller clearing the cache when the link comes back up, and by the TTL.
 */
export function catalogChangesListener(prefix: string, cache: CatalogCache, logger: Logger) {
  const subject = catalogChangesSubject(prefix);
  let followed: NatsConnection | undefined;
  return {
    follow(connection: NatsConnection): void {
      if (followed === connection) return;
      followed = connection;
      connection.subscribe(subject, {
        callback: (error, message) => {
          if (error) return logger.warn({ err: error }, 'catalog change notices interrupted');
          const change = parseCatalogChange(message.data);
          if (change) cache.invalidate(change);
          else logger.warn({ subject }, 'ignored a catalog change notice that is not one');
        },
      });
    },
  };
}
