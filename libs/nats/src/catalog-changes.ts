import type { NatsConnection } from '@nats-io/transport-node';
import { subjectRoot } from './topology.js';

/**
 * Catalog change notices: after an upsert or an enable/disable has committed, catalog publishes
 * `{ kind, id }` on `<root>.catalog.events.changed` (core NATS), and every jobs replica drops its
 * cached copy of that entry, so CreateJob sees a disabled model within moments.
 *
 * Core NATS, not a JetStream stream, on purpose: the notice is a doorbell for a cache, not a
 * record of truth. A notice lost while a replica is disconnected costs at most the cache's TTL
 * (and a replica that reconnects drops its whole cache, for it cannot know what it missed); a
 * stream would add storage, a consumer per replica and permissions for nothing the TTL does not
 * already bound.
 */
const CATALOG_ENTRY_KINDS = ['model', 'style'] as const;
export type CatalogEntryKind = (typeof CATALOG_ENTRY_KINDS)[number];

/** What changed in the catalog: one model or style, by id. */
export interface CatalogChange {
  kind: CatalogEntryKind;
  id: string;
}

/** `<root>.catalog.events.changed` for a NATS_STREAM_PREFIX (`ATELIER` → `atelier.catalog.events.changed`). */
export function catalogChangesSubject(prefix: string): string {
  return `${subjectRoot(prefix)}.catalog.events.changed`;
}

const encoder = new TextEncoder();

/**
 * Publishes a change notice on the connection, if there is one. Never throws: a notice that
 * cannot be sent is one the subscribers' TTL covers, and the catalog write it follows has
 * already committed. While the client reconnects, nats.js buffers the publish and sends it on
 * reconnection. Answers whether it was handed to the client.
 */
export function publishCatalogChange(connection: NatsConnection | undefined, subject: string, change: CatalogChange): boolean {
  if (!connection || connection.isClosed()) return false;
  try {
    connection.publish(subject, encoder.encode(JSON.stringify({ kind: change.kind, id: change.id })));
    return true;
  } catch {
    return false;
  }
}

/** Reads a notice; undefined for anything that is not one (a subscriber ignores it). */
export function parseCatalogChange(data: Uint8Array): CatalogChange | undefined {
  try {
    const value = JSON.parse(new TextDecoder().decode(data)) as Partial<CatalogChange>;
    if (!CATALOG_ENTRY_KINDS.includes(value.kind as CatalogEntryKind) || typeof value.id !== 'string' || value.id === '') return undefined;
    return { kind: value.kind as CatalogEntryKind, id: value.id };
  } catch {
    return undefined;
  }
}
