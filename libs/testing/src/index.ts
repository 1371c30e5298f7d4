/**
 * The test kit. Integration tests run against the real Postgres (and later NATS and S3) on
 * loopback; each run gets its own database and uniquely named resources, removed afterwards,
 * so runs never collide.
 */
export { createTestDatabase, dropStaleTestDatabases, adminDatabaseUrl, type TestDatabase } from './test-database.js';
export { rangeChecksOf, columnLengthsOf } from './schema-bounds.js';
export { uniqueName } from './unique-name.js';
export { waitUntil } from './wait-until.js';
export { unusedHandlers } from './unused-handlers.js';
export { checkHealth, listReflectedServices } from './grpc-probes.js';
export { natsTestPrefix, dropStaleTestStreams, testNatsUrl } from './nats-test-prefix.js';
export { startProcess, startGrpcServiceProcess, startHttpServiceProcess, freePort, type ServiceProcess } from './service-process.js';
export { startTestPlatform, type TestPlatform, type PlatformOptions } from './platform.js';
export { startOtlpCollector, type OtlpCollector, type CollectedSpan } from './otlp-collector.js';
export {
  startNatsServer,
  startNatsCluster,
  type NatsServerProcess,
  type NatsServerOptions,
  type NatsClusterProcess,
} from './nats-server-process.js';
export { MobileApi, type ApiAnswer, type ApiJob, testPng } from './mobile-api.js';
export { TEST_UPSCALE_MODEL, addUpscaleModel } from './upscale-model.js';
export { testPki, testIdentityEnv, testSecurity, testClient } from './test-pki.js';
export { testProductEventsKey } from './test-product-events-key.js';
// A PKI of a test's own making (a foreign CA, say), beside the shared one of testPki().
export { ensureDevPki } from '@atelier/platform';
export { kekFileText, testCredentialsKekFile } from './test-credentials-kek.js';
export { testTempDirectory, TEST_TMPDIR_VARIABLE } from './test-temp-directory.js';
export { TEST_OPERATOR_ACTOR } from './test-operator.js';
