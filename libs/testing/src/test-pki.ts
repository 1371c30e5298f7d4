import type { Client } from '@grpc/grpc-js';
import {
  createServiceClient,
  loadGrpcSecurity,
  type ClientConstructor,
  type GrpcSecurity,
  type PromiseClient,
  type ServiceClientOptions,
} from '@atelier/grpc';
import { ensureDevPki, PLATFORM_IDENTITIES, type DevPki, type IdentityFiles } from '@atelier/platform';
import { testTempDirectory } from './test-temp-directory.js';

let pki: Promise<DevPki> | undefined;

/**
 * This test process's CA and service certificates (created once, in a temporary directory removed
 * at exit or with the test run's: testTempDirectory). Every platform a test starts uses it, so a
 * test can call any service as any identity.
 */
export function testPki(): Promise<DevPki> {
  pki ??= (async () => {
    const directory = testTempDirectory('atelier-test-pki-');
    // `stranger`: a certificate of the platform's CA that no server allows anything.
    return ensureDevPki(directory, { identities: [...PLATFORM_IDENTITIES, 'stranger'] });
  })();
  return pki;
}

/** The GRPC_TLS_* variables that make a service process run as `identity`. */
export async function testIdentityEnv(identity: string): Promise<IdentityFiles> {
  return (await testPki()).filesOf(identity);
}

/** Mutual-TLS material of `identity`, for gRPC clients and servers made inside a test. */
export async function testSecurity(identity: string): Promise<GrpcSecurity> {
  return loadGrpcSecurity((await testPki()).filesOf(identity));
}

/**
 * A test's unary calls wait longer than a service waits for a peer (PEER_DEADLINE_MS): many suites
 * share the test machine, and a test asserts on the answer, not on how fast it came.
 */
const TEST_CALL_DEADLINE_MS = 5_000;

/** A gRPC client of a platform service that calls as `identity` (its certificate from testPki). */
export async function testClient<C extends Client>(
  ClientCtor: ClientConstructor<C>,
  address: string,
  identity: string,
  options?: ServiceClientOptions,
): Promise<PromiseClient<C>> {
  return createServiceClient(ClientCtor, address, await testSecurity(identity), { defaultDeadlineMs: TEST_CALL_DEADLINE_MS, ...options });
}
