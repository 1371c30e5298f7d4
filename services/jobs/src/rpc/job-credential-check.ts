import { FailedPreconditionError, NotFoundError } from '@atelier/errors';
import type { SqlPool } from '@atelier/db';
import { selectCredential } from '../db/provider-credentials-sql.js';
import type { ResolvedCommand } from '../peers/peer-validation.js';

/**
 * The credential a new job runs with (docs/credentials.md): with credential_id, a key of the
 * caller's own, not deleted, for the model's provider, of a model that allows user_key; without,
 * the platform's key, of a model that allows platform_key. Someone else's key does not exist for
 * the caller (NOT_FOUND, as a deleted one).
 */
export async function jobCredentialOf(
  pool: SqlPool,
  credentialId: string | undefined,
  resolved: Pick<ResolvedCommand, 'snapshot' | 'credentialModes'>,
  userId: string,
): Promise<{ mode: 'user_key'; id: string } | undefined> {
  if (credentialId === undefined) {
    if (resolved.snapshot && !resolved.credentialModes.includes('platform_key')) {
      throw new FailedPreconditionError('CREDENTIAL_REQUIRED', 'this model runs only with a vendor key of your own: give credential_id');
    }
    return undefined;
  }
  if (!resolved.snapshot) throw new FailedPreconditionError('CREDENTIAL_MODE_NOT_ALLOWED', 'this job type calls no vendor');
  if (!resolved.credentialModes.includes('user_key')) {
    throw new FailedPreconditionError('CREDENTIAL_MODE_NOT_ALLOWED', 'this model does not run with vendor keys of users');
  }
  const credential = await selectCredential(pool, credentialId);
  if (!credential || credential.user_id !== userId || credential.deleted_at) throw new NotFoundError('provider credential');
  if (credential.provider_code !== resolved.snapshot.providerCode) {
    throw new FailedPreconditionError(
      'CREDENTIAL_PROVIDER_MISMATCH',
      `this key is for provider ${credential.provider_code}, the model runs on ${resolved.snapshot.providerCode}`,
    );
  }
  return { mode: 'user_key', id: credential.id };
}
