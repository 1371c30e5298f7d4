import { Migration } from '@atelier/orm';

/**
 * Credential modes a model allows (docs/credentials.md): `platform_key` (the platform's vendor
 * key) and/or `user_key` (a key of the user's own, registered with jobs). Every model allows the
 * platform's key until an operator says otherwise; never none, never anything else.
 */
export class ModelCredentialModes extends Migration {
  override up(): void {
    this.addSql(`
      ALTER TABLE catalog.models
        ADD COLUMN credential_modes text[] NOT NULL DEFAULT '{platform_key}'
          CONSTRAINT models_credential_modes_known
            CHECK (cardinality(credential_modes) >= 1 AND credential_modes <@ ARRAY['platform_key', 'user_key']::text[])`);
  }
}
