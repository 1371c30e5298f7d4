import { Migration } from '@atelier/orm';

/**
 * community.authors: a public handle per author, random (it says nothing about the identity
 * provider's subject, which may be an e-mail address) and stable. Posts show the handle; the
 * subject never leaves the service except to its own author's views. Handles of authors who
 * posted before this migration are made here.
 */
export class AuthorHandles extends Migration {
  override up(): void {
    this.addSql(`
      CREATE TABLE community.authors (
        user_id    varchar(128)   PRIMARY KEY,
        handle     varchar(32)    NOT NULL UNIQUE DEFAULT ('u' || substr(replace(gen_random_uuid()::text, '-', ''), 1, 16)),
        created_at timestamptz(3) NOT NULL DEFAULT now()
      );
      INSERT INTO community.authors (user_id) SELECT DISTINCT author_user_id FROM community.posts;
    `);
  }

  override down(): void {
    this.addSql('DROP TABLE community.authors;');
  }
}
