import type { jobsCredentialsV1 } from '@atelier/contracts';
import { InvalidArgumentError } from '@atelier/errors';
import type { Handler } from '@atelier/grpc';
import { auditedChange, requireOperatorActor } from '@atelier/operator-audit';
import { EnvelopeError, rewrap } from '../domain/credential-envelope.js';
import { countCredentialsToRewrap, selectCredentialsToRewrap, updateWrappedKeys } from '../db/provider-credentials-sql.js';
import type { JobsContext } from '../jobs-context.js';
import { kekRingOf } from './provider-credentials.js';

type Service = typeof jobsCredentialsV1.ProviderCredentialsServiceService;

/**
 * After a KEK rotation (a new current key in CREDENTIALS_KEK_FILE): one batch of credentials
 * moves to the current KEK — their data keys unwrapped with the old KEK and wrapped again, the
 * ciphertexts untouched — in one transaction over rows locked SKIP LOCKED (two operators at once
 * share the work). Idempotent: a row already under the current KEK is not selected. A row that
 * does not open is left where it is and counted in `remaining` (the log names it). Each batch
 * is one audit entry, in its transaction.
 */
export function rewrapCredentials(context: JobsContext): Handler<Service['rewrapCredentials']> {
  return async (request) => {
    const batchSize = request.batchSize === 0 ? 100 : request.batchSize;
    if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > 1000) throw new InvalidArgumentError('batch_size', 'must be 0–1000');
    const actor = requireOperatorActor(request.actor);
    const ring = kekRingOf(context);
    const audited = { action: 'credentials.rewrap', actor, target: `kek:${ring.current.id}` };
    const rewrapped = await auditedChange(context.pool, 'jobs', audited, async (client) => {
      const rows = await selectCredentialsToRewrap(client, ring.current.id, batchSize);
      const moved = [];
      for (const row of rows) {
        try {
          moved.push({
            id: row.id,
            sealed: rewrap(ring, row.sealed, { credentialId: row.id, userId: row.user_id, providerCode: row.provider_code }),
          });
        } catch (error) {
          if (!(error instanceof EnvelopeError)) throw error;
          context.logger.error(
            { credentialId: row.id, kekId: row.sealed.kekId, err: error },
            'a stored vendor key does not open: not rewrapped',
          );
        }
      }
      await updateWrappedKeys(client, moved);
      return { result: moved.length, after: { rewrapped: moved.length } };
    });
    const remaining = await countCredentialsToRewrap(context.pool, ring.current.id);
    context.logger.info({ rewrapped, remaining, kekId: ring.current.id }, 'credentials rewrapped');
    return { rewrapped, remaining, currentKekId: ring.current.id };
  };
}
