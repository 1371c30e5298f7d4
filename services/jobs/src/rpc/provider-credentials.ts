import type { jobsCredentialsV1 } from '@atelier/contracts';
import { inTransaction, uuidv7 } from '@atelier/db';
import { FailedPreconditionError, NotFoundError } from '@atelier/errors';
import type { Handler } from '@atelier/grpc';
import { PROVIDER_CODES } from '@atelier/job-types';
import { requireUserId, requireUuid } from '@atelier/validation';
import { seal } from '../domain/credential-envelope.js';
import type { KekRing } from '../domain/kek-ring.js';
import { keyHintOf, requireCredentialInput } from '../domain/provider-credential-rules.js';
import {
  deleteCredential,
  insertCredentialWithinLimit,
  selectCredentialsOfUser,
  type CredentialRow,
} from '../db/provider-credentials-sql.js';
import type { JobsContext } from '../jobs-context.js';

type Service = typeof jobsCredentialsV1.ProviderCredentialsServiceService;

/** A credential as its owner sees it: never the key. */
export function toCredentialMessage(row: CredentialRow): jobsCredentialsV1.ProviderCredential {
  return {
    id: row.id,
    userId: row.user_id,
    providerCode: row.provider_code,
    label: row.label,
    keyHint: row.key_hint,
    createdAt: row.created_at,
    lastRefusedAt: row.last_refused_at ?? undefined,
  };
}

/** The KEK ring, or the refusal of a deployment without CREDENTIALS_KEK_FILE. */
export function kekRingOf(context: Pick<JobsContext, 'credentials'>): KekRing {
  const keks = context.credentials.keks;
  if (!keks) {
    throw new FailedPreconditionError(
      'CREDENTIALS_UNAVAILABLE',
      'this deployment does not keep vendor keys of users (no CREDENTIALS_KEK_FILE)',
    );
  }
  return keks();
}

/** Registers a user's vendor key, sealed, within the per-user limit. */
export function createProviderCredential(context: JobsContext): Handler<Service['createProviderCredential']> {
  return async (request) => {
    const userId = requireUserId(request.userId, 'user_id');
    const input = requireCredentialInput(request, PROVIDER_CODES);
    const ring = kekRingOf(context);
    const id = uuidv7();
    const sealed = seal(ring, input.apiKey, { credentialId: id, userId, providerCode: input.providerCode });
    const row = await inTransaction(context.pool, (client) =>
      insertCredentialWithinLimit(
        client,
        { id, userId, providerCode: input.providerCode, label: input.label, keyHint: keyHintOf(input.apiKey), sealed },
        context.credentials.maxPerUser,
      ),
    );
    if (!row) {
      throw new FailedPreconditionError(
        'CREDENTIAL_LIMIT_REACHED',
        `a user may register at most ${context.credentials.maxPerUser} vendor keys; delete one first`,
        { params: { max: context.credentials.maxPerUser } },
      );
    }
    return { credential: toCredentialMessage(row) };
  };
}

export function listProviderCredentials(context: JobsContext): Handler<Service['listProviderCredentials']> {
  return async (request) => {
    const userId = requireUserId(request.userId, 'user_id');
    const rows = await selectCredentialsOfUser(context.pool, userId);
    return { credentials: rows.map(toCredentialMessage), maxCredentials: context.credentials.maxPerUser };
  };
}

export function deleteProviderCredential(context: JobsContext): Handler<Service['deleteProviderCredential']> {
  return async (request) => {
    const userId = requireUserId(request.userId, 'user_id');
    const id = requireUuid(request.credentialId, 'credential_id');
    if (!(await deleteCredential(context.pool, userId, id))) throw new NotFoundError('provider credential');
    return {};
  };
}
