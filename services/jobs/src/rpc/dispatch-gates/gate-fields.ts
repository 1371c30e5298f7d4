import { InvalidArgumentError } from '@atelier/errors';
import { MAX_PROVIDER_MODEL_LENGTH, requireNoNul, requireText } from '@atelier/validation';

/** A provider code as the catalog spells them. */
const PROVIDER_CODE = /^[a-z][a-z0-9_-]{0,63}$/;

export function requireProviderCode(value: string | undefined, field = 'provider_code'): string {
  if (!PROVIDER_CODE.test(value ?? '')) throw new InvalidArgumentError(field, `must match ${PROVIDER_CODE.source}`);
  return value!;
}

/** '' (every model of the provider) or a provider model name. */
export function requireProviderModel(value: string | undefined, field = 'provider_model'): string {
  return requireNoNul(requireText(value, field, MAX_PROVIDER_MODEL_LENGTH, { allowEmpty: true }), field);
}

export function requireOperatorId(value: string | undefined): string {
  return requireText(value, 'operator_id', 128);
}

const CURRENCY = /^[A-Z]{3}$/;

export function requireCurrency(value: string | undefined): string {
  if (!CURRENCY.test(value ?? '')) throw new InvalidArgumentError('currency', 'must be an ISO 4217 code, e.g. USD');
  return value!;
}
