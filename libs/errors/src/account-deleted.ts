import { FailedPreconditionError } from './app-error.js';

/**
 * What every service answers a write of a user whose account's deletion was requested (jobs from
 * the request on; media and community once their part of the deletion started). The gateway maps
 * the reason to 403 ACCOUNT_DELETED.
 */
export class AccountDeletedError extends FailedPreconditionError {
  override name = 'AccountDeletedError';
  constructor() {
    super('ACCOUNT_DELETED', 'this account is being deleted or was deleted; nothing can be created in it any more');
  }
}
