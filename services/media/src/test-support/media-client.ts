import { mediaV1 } from '@atelier/contracts';
import { createServiceClient, type PromiseClient } from '@atelier/grpc';

/**
 * The media client tests use: one place to give them the credentials internal gRPC requires.
 */
export function mediaTestClient(address: string): PromiseClient<mediaV1.MediaServiceClient> {
  return createServiceClient(mediaV1.MediaServiceClient, address, { defaultDeadlineMs: 60_000 });
}
