import { hostPort, int, oneOf, optional, port, str, url, type ConfigOf } from '@atelier/config';
import { grpcSecurityConfigSpec } from '@atelier/grpc';

/** Environment variables of the gateway (README, "Configuration of gateway"). */
export const gatewayConfigSpec = {
  ...grpcSecurityConfigSpec,
  HTTP_PORT: port(8080),
  CATALOG_ADDR: hostPort('127.0.0.1:50051'),
  MEDIA_ADDR: hostPort('127.0.0.1:50052'),
  JOBS_ADDR: hostPort('127.0.0.1:50053'),
  COMMUNITY_ADDR: hostPort('127.0.0.1:50054'),
  /** PEM (SPKI) public key of the token issuer; or JWKS_URL. One of them is required. */
  JWT_PUBLIC_KEY: optional(str({ secret: true })),
  JWKS_URL: optional(url({ protocols: ['http:', 'https:'] })),
  JWT_ISSUER: optional(str()),
  JWT_AUDIENCE: optional(str()),
  /** Deadline of a gRPC call made for a request. */
  UPSTREAM_DEADLINE_MS: int({ default: 10_000, min: 100, max: 120_000 }),
  /** Comment lines keep SSE streams open through proxies. */
  SSE_KEEPALIVE_MS: int({ default: 15_000, min: 100, max: 600_000 }),
  LOG_LEVEL: oneOf(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], 'info'),
  SHUTDOWN_GRACE_MS: int({ default: 10_000, min: 0, max: 600_000 }),
} as const;

export type GatewayConfig = ConfigOf<typeof gatewayConfigSpec>;
