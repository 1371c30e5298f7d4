import { defineEntity, p } from '@atelier/orm';
import { MAX_USER_ID_LENGTH } from '@atelier/validation';

/** jobs.provider_credentials: users' own vendor keys, sealed (migration 0017, docs/credentials.md). */
export const ProviderCredentialEntity = defineEntity({
  name: 'ProviderCredential',
  tableName: 'provider_credentials',
  properties: {
    id: p.uuid().primary(),
    userId: p.string().length(MAX_USER_ID_LENGTH),
    providerCode: p.string().length(64),
    label: p.string().length(64),
    keyHint: p.string().length(4),
    kekId: p.string().length(64).nullable(),
    wrappedKey: p.blob().nullable(),
    wrapNonce: p.blob().nullable(),
    wrapTag: p.blob().nullable(),
    ciphertext: p.blob().nullable(),
    nonce: p.blob().nullable(),
    tag: p.blob().nullable(),
    createdAt: p.datetime().defaultRaw('now()'),
    lastRefusedAt: p.datetime().nullable(),
    deletedAt: p.datetime().nullable(),
  },
  indexes: [
    { name: 'provider_credentials_by_user', properties: ['userId', 'createdAt'], where: 'deleted_at IS NULL' },
    { name: 'provider_credentials_by_kek', properties: ['kekId', 'id'], where: 'kek_id IS NOT NULL' },
  ],
  checks: [
    { name: 'provider_credentials_label_length', expression: 'char_length(label) >= 1 AND char_length(label) <= 64' },
    { name: 'provider_credentials_key_hint_length', expression: 'char_length(key_hint) = 4' },
    { name: 'provider_credentials_ciphertext_length', expression: 'octet_length(ciphertext) >= 1 AND octet_length(ciphertext) <= 1024' },
    { name: 'provider_credentials_sealed_until_deleted', expression: '(deleted_at IS NULL) = (ciphertext IS NOT NULL)' },
    {
      name: 'provider_credentials_sealed_whole',
      expression:
        '(ciphertext IS NULL) = (kek_id IS NULL) AND (ciphertext IS NULL) = (wrapped_key IS NULL)' +
        ' AND (ciphertext IS NULL) = (wrap_nonce IS NULL) AND (ciphertext IS NULL) = (wrap_tag IS NULL)' +
        ' AND (ciphertext IS NULL) = (nonce IS NULL) AND (ciphertext IS NULL) = (tag IS NULL)',
    },
  ],
});
