/**
 * gRPC for Atelier services: a server bootstrap with health, reflection, error mapping and
 * graceful shutdown, and a typed client factory with deadlines and retries whose unary and
 * streaming calls all fail with domain errors.
 */
export {
  startGrpcServer,
  registerService,
  servingOptionsOf,
  type GrpcServingOptions,
  type GrpcServerOptions,
  type GrpcServerHandle,
  type ServiceRegistration,
} from './server.js';
export { type CallContext, type ServerStream, type ServiceHandlers, type Handler, type CallLogger } from './service-handlers.js';
export {
  createServiceClient,
  PEER_DEADLINE_MS,
  type PromiseClient,
  type ServiceClientOptions,
  type ClientCallOptions,
  type ClientConstructor,
} from './client.js';
export { type ServerStreamCall } from './client-streams.js';
/** Any generated client (the constraint of ClientConstructor), for code generic over the API it calls. */
export type { Client as GrpcClient } from '@grpc/grpc-js';
export { fromServiceError, toStatusDetails, fromStatusDetails, type StatusDetails } from './service-errors.js';
export { checkHealth, type HealthCheckTarget } from './health-client.js';
export { type CallObserver } from './call-observer.js';
export { Metadata, status as GrpcStatus } from '@grpc/grpc-js';
export {
  loadGrpcSecurity,
  channelCredentialsOf,
  tlsChannelOptions,
  type GrpcSecurity,
  type GrpcSecurityFiles,
  serviceIdentityUri,
} from './transport-security.js';
export { type CallerPolicy } from './caller-authorization.js';
export { grpcSecurityConfigSpec } from './grpc-config.js';
