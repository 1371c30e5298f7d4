/**
 * gRPC for Atelier services: a server bootstrap with health, reflection, error mapping and
 * graceful shutdown, and a promise client factory with deadlines and retries.
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
export {
  adaptService,
  type CallContext,
  type ServerStream,
  type ServiceHandlers,
  type Handler,
  type CallLogger,
} from './service-handlers.js';
export {
  createServiceClient,
  type PromiseClient,
  type ServiceClientOptions,
  type UnaryCallOptions,
  type ClientConstructor,
} from './client.js';
export { toStatusObject, fromServiceError } from './service-errors.js';
export { checkHealth, type HealthCheckTarget } from './health-client.js';
export { observeCalls, type CallObserver } from './call-observer.js';
export { GRPC_STATUS_BY_ERROR_CODE, errorCodeForGrpcStatus, ErrorMetadataKey } from './status-map.js';
export { Metadata, status as GrpcStatus } from '@grpc/grpc-js';
export {
  loadGrpcSecurity,
  channelCredentialsOf,
  tlsChannelOptions,
  identityOfCertificate,
  serviceIdentityUri,
  serverNameOfService,
  type GrpcSecurity,
  type GrpcSecurityFiles,
} from './transport-security.js';
export { authorizeCalls, type CallerPolicy } from './caller-authorization.js';
export { grpcSecurityConfigSpec } from './grpc-config.js';
