import type { PeerCertificate } from 'node:tls';
import {
  Metadata,
  status as GrpcStatus,
  type ServerWritableStream,
  type ServiceDefinition,
  type UntypedHandleCall,
  type UntypedServiceImplementation,
  type sendUnaryData,
} from '@grpc/grpc-js';
import { identityOfCertificate } from './transport-security.js';

/**
 * Which caller identities (service names proven by their certificates) may call which methods of
 * one service: `{ gateway: 'all', worker: ['claimJobs', 'failJob'] }`. Anyone not listed, and
 * any method not listed for a caller, is refused. Method names are the definition's keys.
 */
export type CallerPolicy<D> = Readonly<Record<string, 'all' | readonly (keyof D & string)[]>>;

interface AuthorizedCall {
  getAuthContext?(): { sslPeerCertificate?: PeerCertificate } | null;
}

/** Told of each refused call, for the log: who tried what. */
type DeniedCallListener = (method: string, caller: string | undefined) => void;

/**
 * Wraps a service's handlers so that each call runs only when its caller's certificate proves an
 * identity the policy allows for that method; others are answered PERMISSION_DENIED before any
 * handler code runs.
 */
export function authorizeCalls(
  definition: ServiceDefinition,
  implementation: UntypedServiceImplementation,
  policy: CallerPolicy<Record<string, unknown>>,
  trustDomain: string,
  onDenied?: DeniedCallListener,
): UntypedServiceImplementation {
  // The identity each peer certificate proves, worked out once: the certificate object is its
  // connection's own for the connection's whole life (peer-certificate-memo.ts).
  const identities = new WeakMap<PeerCertificate, string | undefined>();
  const identityOf = (certificate: PeerCertificate | undefined): string | undefined => {
    if (!certificate) return undefined;
    if (!identities.has(certificate)) identities.set(certificate, identityOfCertificate(certificate, trustDomain));
    return identities.get(certificate);
  };
  const authorized: UntypedServiceImplementation = {};
  for (const [name, method] of Object.entries(definition)) {
    const handle = implementation[name];
    if (!handle) continue;
    const allowed = new Set(
      Object.entries(policy)
        .filter(([, methods]) => methods === 'all' || methods.includes(name))
        .map(([caller]) => caller),
    );
    const refusal = (call: AuthorizedCall) => {
      const caller = identityOf(call.getAuthContext?.()?.sslPeerCertificate);
      if (caller !== undefined && allowed.has(caller)) return undefined;
      onDenied?.(method.path, caller);
      return {
        code: GrpcStatus.PERMISSION_DENIED,
        details: `${caller ? `service ${caller}` : 'a caller without a service identity'} may not call ${method.path}`,
        metadata: new Metadata(),
      };
    };
    if (method.responseStream) {
      authorized[name] = ((call: ServerWritableStream<unknown, unknown> & AuthorizedCall) => {
        const denied = refusal(call);
        if (denied) call.emit('error', denied);
        else (handle as (call: ServerWritableStream<unknown, unknown>) => void)(call);
      }) as UntypedHandleCall;
    } else {
      authorized[name] = ((call: AuthorizedCall, callback: sendUnaryData<unknown>) => {
        const denied = refusal(call);
        if (denied) callback(denied);
        else (handle as (call: unknown, callback: sendUnaryData<unknown>) => void)(call, callback);
      }) as UntypedHandleCall;
    }
  }
  return authorized;
}
