import { defineEntity, p } from '@atelier/orm';
import { MAX_USER_ID_LENGTH } from '@atelier/validation';

/** community.authors: each author's public handle, random and stable (it says nothing of the subject). */
export const AuthorEntity = defineEntity({
  name: 'Author',
  tableName: 'authors',
  properties: {
    userId: p.string().length(MAX_USER_ID_LENGTH).primary(),
    handle: p
      .string()
      .length(32)
      .unique('authors_handle_key')
      // As Postgres stores it: MikroORM compares raw defaults as text.
      .defaultRaw(`('u'::text || substr(replace((gen_random_uuid())::text, '-'::text, ''::text), 1, 16))`),
    createdAt: p.datetime(3).defaultRaw('now()'),
  },
});
