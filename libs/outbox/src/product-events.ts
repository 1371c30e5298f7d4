import { createHash, createHmac } from 'node:crypto';
import { inspect } from 'node:util';
import type { VarSpec } from '@atelier/config';
import { jobsTopology } from '@atelier/nats';
import type { OutboxEvent } from './outbox-sql.js';

/**
 * The product events of a creation (atelier.events.v1 ProductEvent, product_events.proto): the
 * app's funnel upload → submit → succeed → draft → publish, each written by the service that owns
 * the fact, in the transaction that makes it, to its outbox. The names are final: the app's
 * `/api/v1/events` pipeline whitelists them (docs/product-events.md).
 */
export const PRODUCT_EVENT_NAMES = [
  'creation_upload_completed',
  'creation_job_submitted',
  'creation_job_succeeded',
  'creation_job_failed',
  'creation_job_cancelled',
  'creation_draft_created',
  'creation_post_published',
] as const;
export type ProductEventName = (typeof PRODUCT_EVENT_NAMES)[number];

/**
 * The event id of a fact: `<event_name>:<aggregate id>`, the outbox dedupe key and the
 * Nats-Msg-Id. A fact happens once per aggregate (an upload completes once, a job ends once, a post
 * is first published once), so a second row for it is refused by the outbox's unique key.
 */
export const productEventId = (name: ProductEventName, aggregateId: string) => `${name}:${aggregateId}`;

/** productEventId in SQL, for statements that write their own events (the outbox dedupe key). */
export const productEventIdSql = (nameSql: string, aggregateIdSql: string) => `${nameSql} || ':' || ${aggregateIdSql}`;

/** An RFC 3339 UTC timestamp with milliseconds, as Date.toISOString writes it (proto3 JSON of Timestamp). */
export const rfc3339Sql = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/** Values of an event's props: ids and facts. A null or undefined prop is left out. */
export type ProductEventProps = Readonly<Record<string, string | number | boolean | null | undefined>>;

/** One fact, as the service that owns it knows it. */
export interface ProductEventFact {
  name: ProductEventName;
  /** The job, asset or post the fact is about. */
  aggregateId: string;
  /** Whose: only its user_ref leaves the service. */
  userId: string;
  /** When the fact was committed (the row's own timestamp). */
  occurredAt: Date;
  props: ProductEventProps;
}

/** ProductEvent in its proto3 JSON form, as published. */
export interface ProductEventMessage {
  eventId: string;
  eventName: ProductEventName;
  occurredAt: string;
  userRef: string;
  props: Record<string, string | number | boolean>;
}

const MIN_KEY_LENGTH = 32;
const HMAC_BLOCK_BYTES = 64;

/**
 * PRODUCT_EVENTS_USER_KEY: the secret under which a user id becomes its user_ref, the same in
 * jobs, media and community (one Secret in the chart; `npm start` and the test kit make one per
 * run). Changing it changes every user's user_ref from then on.
 */
export const productEventsConfigSpec = {
  PRODUCT_EVENTS_USER_KEY: {
    secret: true,
    describe: `a random string of at least ${MIN_KEY_LENGTH} characters (e.g. \`openssl rand -base64 32\`)`,
    doc: 'the key of the `user_ref` in product events (an HMAC of the user id), the same in jobs, media and community; never logged',
    parse(raw) {
      const value = raw?.trim();
      if (!value) throw new Error('is required but not set');
      if (value.length < MIN_KEY_LENGTH) throw new Error(`must be at least ${MIN_KEY_LENGTH} characters`);
      return value;
    },
  } satisfies VarSpec<string>,
} as const;

/**
 * The key user_refs are made with, held so that it never reaches a log: printed, inspected or
 * serialised it is `[redacted]`.
 */
export class UserRefKey {
  readonly #key: Buffer;

  constructor(secret: string) {
    if (secret.length < MIN_KEY_LENGTH) throw new Error(`a user_ref key has at least ${MIN_KEY_LENGTH} characters`);
    this.#key = Buffer.from(secret, 'utf8');
  }

  /** The user_ref of a user id: hex HMAC-SHA256 under the key. */
  refOf(userId: string): string {
    return createHmac('sha256', this.#key).update(userId, 'utf8').digest('hex');
  }

  /**
   * The key's inner and outer HMAC pads (64 bytes each, in that order), for SQL that makes the
   * user_ref of rows it writes itself (userRefSql): HMAC(K, m) = H((K' ⊕ opad) ‖ H((K' ⊕ ipad) ‖ m)),
   * K' the key (hashed first when longer than a block) padded with zeros to the block. As secret
   * as the key: bound as a statement parameter, never written into SQL text.
   */
  sqlPads(): Buffer {
    const block = Buffer.alloc(HMAC_BLOCK_BYTES);
    (this.#key.length > HMAC_BLOCK_BYTES ? createHash('sha256').update(this.#key).digest() : this.#key).copy(block);
    const pads = Buffer.alloc(2 * HMAC_BLOCK_BYTES);
    for (let i = 0; i < HMAC_BLOCK_BYTES; i += 1) {
      pads[i] = block[i]! ^ 0x36;
      pads[HMAC_BLOCK_BYTES + i] = block[i]! ^ 0x5c;
    }
    return pads;
  }

  toString(): string {
    return '[redacted]';
  }

  toJSON(): string {
    return '[redacted]';
  }

  [inspect.custom](): string {
    return 'UserRefKey [redacted]';
  }
}

/**
 * SQL for the user_ref of a user id column, where `padsParam` is the bound parameter holding
 * UserRefKey.sqlPads(): the same hex HMAC-SHA256 as UserRefKey.refOf, with Postgres's own sha256.
 */
export const userRefSql = (userIdSql: string, padsParam: string) =>
  `encode(sha256(substring(${padsParam}::bytea FROM ${HMAC_BLOCK_BYTES + 1} FOR ${HMAC_BLOCK_BYTES})
                 || sha256(substring(${padsParam}::bytea FROM 1 FOR ${HMAC_BLOCK_BYTES}) || convert_to(${userIdSql}, 'UTF8'))), 'hex')`;

/** The SQL expressions of a fact, for a statement that writes its own product events (jobs' transitions). */
export interface ProductEventSqlParts {
  /** The event name, e.g. `'creation_job_submitted'` or `'creation_job_' || j.status`. */
  name: string;
  aggregateId: string;
  userId: string;
  occurredAt: string;
  /** A jsonb object of the props; its null values are left out. */
  props: string;
}

/**
 * SQL for the ProductEvent of a fact, as ProductEvents.message makes it in code: the same event
 * id, timestamp form and user_ref. `padsParam` is the parameter holding UserRefKey.sqlPads().
 */
export const productEventSql = (parts: ProductEventSqlParts, padsParam: string) =>
  `jsonb_build_object('eventId', ${productEventIdSql(parts.name, parts.aggregateId)}, 'eventName', ${parts.name},
     'occurredAt', ${rfc3339Sql(parts.occurredAt)}, 'userRef', ${userRefSql(parts.userId, padsParam)},
     'props', jsonb_strip_nulls(${parts.props}))`;

/**
 * What a service needs to write its product events: the key and where each name is published.
 * `outboxEvent` makes the outbox row of a fact, for insertOutboxEvents in the fact's transaction.
 */
export class ProductEvents {
  constructor(
    readonly options: {
      key: UserRefKey;
      /** `<root>.product.events.<name>` (libs/nats topology.productEventSubject). */
      subjectOf: (name: ProductEventName) => string;
    },
  ) {}

  message(fact: ProductEventFact): ProductEventMessage {
    const props: Record<string, string | number | boolean> = {};
    for (const [name, value] of Object.entries(fact.props)) if (value !== null && value !== undefined) props[name] = value;
    return {
      eventId: productEventId(fact.name, fact.aggregateId),
      eventName: fact.name,
      occurredAt: fact.occurredAt.toISOString(),
      userRef: this.options.key.refOf(fact.userId),
      props,
    };
  }

  outboxEvent(fact: ProductEventFact): OutboxEvent {
    const message = this.message(fact);
    return {
      aggregateId: fact.aggregateId,
      eventType: fact.name,
      subject: this.options.subjectOf(fact.name),
      dedupeKey: message.eventId,
      payload: message,
    };
  }
}

/** The product events of a service configured with PRODUCT_EVENTS_USER_KEY and NATS_STREAM_PREFIX. */
export function productEventsOf(config: { PRODUCT_EVENTS_USER_KEY: string; NATS_STREAM_PREFIX: string }): ProductEvents {
  const topology = jobsTopology(config.NATS_STREAM_PREFIX);
  return new ProductEvents({
    key: new UserRefKey(config.PRODUCT_EVENTS_USER_KEY),
    subjectOf: (name) => topology.productEventSubject(name),
  });
}
