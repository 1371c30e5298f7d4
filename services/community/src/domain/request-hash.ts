import { requestHash } from '@atelier/encoding';
import type { PostCommand } from './post-command.js';

/**
 * The hash of a CreatePost command (L1 idempotency): the normalised fields, not the raw request,
 * so whitespace around a title or an unspecified status that defaults to DRAFT does not make two
 * equal requests differ. Media order is part of the command: it is the layout. The author and
 * the key are not: together they are what the hash is stored under.
 */
export function createPostHash(command: PostCommand): Buffer {
  return requestHash({ kind: 'create-post', ...command });
}

/**
 * The command of CreateDraftFromJob is only "a draft from this job": its title and content are
 * suggestions for the first call, so a second call with other text still replays the draft.
 * The kind keeps it apart from any CreatePost that happened to reuse the same key.
 */
export function draftFromJobHash(jobId: string): Buffer {
  return requestHash({ kind: 'draft-from-job', jobId });
}
