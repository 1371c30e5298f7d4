import type { ServiceHandlers } from '@atelier/grpc';

/**
 * Handlers for every method of a service that fail (INTERNAL, as any unexpected error): a test's
 * or a bench's double of a peer spreads these and writes only the methods it serves.
 */
export function unusedHandlers<D extends object>(definition: D): ServiceHandlers<D> {
  const notUsed = async (): Promise<never> => {
    throw new Error('not used here');
  };
  return Object.fromEntries(Object.keys(definition).map((name) => [name, notUsed])) as unknown as ServiceHandlers<D>;
}
