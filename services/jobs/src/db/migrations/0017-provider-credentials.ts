import { Migration } from '@atelier/orm';

/**
 * Credential modes (ADR-003 §2, §8.1; docs/credentials.md).
 *
 * jobs.provider_credentials: a user's own vendor keys. The key itself is never stored in clear:
 * `ciphertext` (AES-256-GCM, `nonce`, `tag`) is sealed under a random 256-bit data key of its own,
 * and that data key is stored only wrapped (`wrapped_key`, `wrap_nonce`, `wrap_tag`) under the
 * key-encryption key `kek_id` names (CREDENTIALS_KEK_FILE; a rewrap moves rows to the current one).
 * `key_hint` is the key's last four characters, shown to its owner to tell keys apart. Deleting a
 * credential keeps its row (the jobs that name it still say which key they ran with) and destroys
 * the sealed key: a deleted row has none of the six sealed columns.
 *
 * generation_jobs: a job records the mode it runs with and, for `user_key`, the credential's id —
 * never the key.
 */
export class ProviderCredentials extends Migration {
  override up(): void {
    this.addSql(`
      CREATE TABLE jobs.provider_credentials (
        id               uuid          PRIMARY KEY,
        user_id          varchar(128)  NOT NULL,
        provider_code    varchar(64)   NOT NULL,
        label            varchar(64)   NOT NULL CONSTRAINT provider_credentials_label_length CHECK (char_length(label) BETWEEN 1 AND 64),
        key_hint         varchar(4)    NOT NULL CONSTRAINT provider_credentials_key_hint_length CHECK (char_length(key_hint) = 4),
        kek_id           varchar(64),
        wrapped_key      bytea,
        wrap_nonce       bytea,
        wrap_tag         bytea,
        ciphertext       bytea         CONSTRAINT provider_credentials_ciphertext_length CHECK (octet_length(ciphertext) BETWEEN 1 AND 1024),
        nonce            bytea,
        tag              bytea,
        created_at       timestamptz   NOT NULL DEFAULT now(),
        last_refused_at  timestamptz,
        deleted_at       timestamptz,

        CONSTRAINT provider_credentials_sealed_until_deleted CHECK ((deleted_at IS NULL) = (ciphertext IS NOT NULL)),
        CONSTRAINT provider_credentials_sealed_whole CHECK (
          (ciphertext IS NULL) = (kek_id IS NULL) AND (ciphertext IS NULL) = (wrapped_key IS NULL)
          AND (ciphertext IS NULL) = (wrap_nonce IS NULL) AND (ciphertext IS NULL) = (wrap_tag IS NULL)
          AND (ciphertext IS NULL) = (nonce IS NULL) AND (ciphertext IS NULL) = (tag IS NULL))
      )`);
    // A user's keys (the list, the per-user limit).
    this.addSql(`CREATE INDEX provider_credentials_by_user ON jobs.provider_credentials (user_id, created_at) WHERE deleted_at IS NULL`);
    // The rewrap finds the rows still under an older KEK.
    this.addSql(`CREATE INDEX provider_credentials_by_kek ON jobs.provider_credentials (kek_id, id) WHERE kek_id IS NOT NULL`);

    this.addSql(`
      ALTER TABLE jobs.generation_jobs
        ADD COLUMN credential_mode varchar(16) NOT NULL DEFAULT 'platform_key'
          CONSTRAINT generation_jobs_credential_mode_known CHECK (credential_mode IN ('platform_key', 'user_key')),
        ADD COLUMN credential_id uuid,
        ADD CONSTRAINT generation_jobs_user_key_has_credential CHECK ((credential_mode = 'user_key') = (credential_id IS NOT NULL))`);
  }
}
