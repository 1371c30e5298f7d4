import { TLSSocket, type PeerCertificate } from 'node:tls';

const memo = new WeakMap<TLSSocket, PeerCertificate>();
let installed = false;

/**
 * grpc-js asks the connection's TLS socket for the peer certificate on every call it serves
 * (getAuthContext, which caller authorization reads), and Node builds a new object from the
 * X.509 structure each time: about a tenth of the jobs service's CPU under load. A peer's
 * certificate does not change during its connection, so the object is built once per socket and
 * reused (it is handed out read-only: nothing here or in grpc-js writes to it). Only the plain
 * form is memoised; `getPeerCertificate(true)` (the detailed chain) is built each time, as before.
 * A socket not yet through its handshake answers as usual and is not memoised.
 */
export function memoisePeerCertificates(): void {
  if (installed) return;
  installed = true;
  const build = TLSSocket.prototype.getPeerCertificate;
  function getPeerCertificate(this: TLSSocket, detailed?: boolean): PeerCertificate {
    if (detailed) return build.call(this, true);
    const known = memo.get(this);
    if (known) return known;
    const certificate = build.call(this, false);
    if (certificate?.raw) memo.set(this, certificate);
    return certificate;
  }
  TLSSocket.prototype.getPeerCertificate = getPeerCertificate as TLSSocket['getPeerCertificate'];
}
