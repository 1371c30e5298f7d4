/**
 * How much a user or an operator may send, field by field: lengths in characters, counts in
 * items. Each bound is set here once; the gateway's route schemas (a request refused at the door
 * by its API name), the services' field rules (the rule itself, checked again) and provider-sim
 * (which accepts what Atelier sends) read it from here. The migrations repeat the numbers in their
 * column sizes and CHECKs (migrations are history, never edited): each service's
 * `entities.integration.test.ts` holds its columns to these (`columnLengthsOf`), so a bound changed
 * here without a migration fails there.
 */

/** A job's prompt (gateway, jobs; jobs.generation_jobs.prompt). */
export const MAX_PROMPT_LENGTH = 10_000;
/** A job's negative prompt (gateway, jobs; jobs.generation_jobs.negative_prompt). */
export const MAX_NEGATIVE_PROMPT_LENGTH = 3_000;
/** A style's prompt preset (gateway, catalog; catalog.styles.prompt_preset). */
export const MAX_PROMPT_PRESET_LENGTH = 2_000;
/**
 * The prompt a job runs with: the user's prompt, ", " and the style's preset
 * (jobs.generation_jobs.effective_prompt), the longest text the worker sends the vendor.
 */
export const MAX_EFFECTIVE_PROMPT_LENGTH = MAX_PROMPT_LENGTH + ', '.length + MAX_PROMPT_PRESET_LENGTH;

/** An idempotency key, after trimming (SPEC §4.3; the gateway's Idempotency-Key header, every service's idempotency_key column). */
export const MAX_IDEMPOTENCY_KEY_LENGTH = 128;
/** A user id: the identity provider's `sub` (every service's user id columns). */
export const MAX_USER_ID_LENGTH = 128;

/** A post's title (gateway, community; community.posts.title). A one-tap draft's title is cut to it. */
export const MAX_POST_TITLE_LENGTH = 120;
/** A post's content (gateway, community; community.posts.content). */
export const MAX_POST_CONTENT_LENGTH = 10_000;
/** The images one post shows. */
export const MAX_MEDIA_PER_POST = 10;

/** A catalog model's display name, and each of its translations (catalog.models.display_name). */
export const MAX_MODEL_DISPLAY_NAME_LENGTH = 120;
/** The vendor's name of a model (catalog.models.provider_model, jobs' snapshot of it). */
export const MAX_PROVIDER_MODEL_LENGTH = 128;
/** The vendor's version of a model (catalog.models.model_version, jobs' snapshot of it). */
export const MAX_MODEL_VERSION_LENGTH = 64;
/** A catalog style's title, and each of its translations (catalog.styles.title). */
export const MAX_STYLE_TITLE_LENGTH = 80;
/** A catalog style's subtitle, and each of its translations (catalog.styles.subtitle). */
export const MAX_STYLE_SUBTITLE_LENGTH = 200;
/** A catalog entry's sort_order lies within ± this. */
export const CATALOG_SORT_ORDER_LIMIT = 1_000_000;

/** A webhook endpoint's URL (webhooks.endpoints.url). */
export const MAX_WEBHOOK_URL_LENGTH = 2_048;
/** A webhook endpoint's description (webhooks.endpoints.description). */
export const MAX_WEBHOOK_DESCRIPTION_LENGTH = 256;

/** A listing's page: at most this many items (the gateway's `limit`, the services' page_size). */
export const MAX_PAGE_SIZE = 100;
/** A listing's page when the request names no size. */
export const DEFAULT_PAGE_SIZE = 20;
