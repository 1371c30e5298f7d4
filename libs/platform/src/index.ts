/**
 * The platform as one description: its services (ports, schema, entry points, health), whether
 * an instance of one is ready, and the development CA that `npm start` and the tests give every
 * identity its certificate from. Used by the tools that start services; a service uses only
 * defaultAddressOf, for the defaults of its peer addresses.
 */
export {
  PLATFORM_SERVICES,
  PLATFORM_IDENTITIES,
  platformService,
  defaultAddressOf,
  portVariableOf,
  entryPointOf,
  migrationEntryPointOf,
  type PlatformService,
  type GrpcPlatformService,
  type HttpPlatformService,
} from './platform-services.js';
export { isServiceReady, type ServiceAddress } from './service-readiness.js';
export { ensureDevPki, type DevPki, type IdentityFiles } from './dev-pki.js';
