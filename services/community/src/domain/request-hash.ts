import { createHash } from 'node:crypto';
import type { PostCommand } from './post-command.js';

/** JSON with object keys sorted at every depth, so equal commands serialise equally. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

const sha256 = (text: string): Buffer => createHash('sha256').update(text).digest();

/**
 * SHA-256 of the canonicalised CreatePost command (L1 idempotency): the normalised fields, not
 * the raw request, so whitespace around a title or an unspecified status that defaults to DRAFT
 * does not make two equal requests differ. Media order is part of the command: it is the layout.
 * The author and the key are not: together they are what the hash is stored under.
 */
export function createPostHash(command: PostCommand): Buffer {
  return sha256(canonicalJson({ kind: 'create-post', ...command }));
}

/**
 * The command of CreateDraftFromJob is only "a draft from this job": its title and content are
 * suggestions for the first call, so a second call with other text still replays the draft.
 * The kind keeps it apart from any CreatePost that happened to reuse the same key.
 */
export function draftFromJobHash(jobId: string): Buffer {
  return sha256(canonicalJson({ kind: 'draft-from-job', jobId }));
}
