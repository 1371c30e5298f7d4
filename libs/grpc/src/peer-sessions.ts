import { lookup } from 'node:dns/promises';
import http2, { type ClientHttp2Session, type ClientHttp2Stream, type OutgoingHttpHeaders } from 'node:http2';
import { isIP } from 'node:net';
import { serverIdentityCheck, type GrpcSecurity } from './transport-security.js';

// A peer that was down (a restart, a crash) is found again within two seconds of its return.
const INITIAL_RECONNECT_BACKOFF_MS = 250;
const MAX_RECONNECT_BACKOFF_MS = 2_000;
// A connection that carried calls and no longer answers a ping is closed: a frozen or partitioned
// peer sends no RST, and its calls would otherwise time out one by one for as long as it lasts.
const KEEPALIVE_INTERVAL_MS = 30_000;
const KEEPALIVE_TIMEOUT_MS = 10_000;
// A connection whose handshake has not finished by then is given up (a peer that accepts and then
// says nothing: frozen, or overloaded), and tried again after the backoff.
const CONNECT_TIMEOUT_MS = 10_000;
// The name is resolved again when a connection closes (servers close theirs at a maximum age, so
// that clients find pods added since), at most this often.
const MIN_RESOLUTION_INTERVAL_MS = 1_000;

/** No connection to the peer can carry a call now: the call fails UNAVAILABLE (and is retried). */
export class PeerUnreachableError extends Error {
  override readonly name = 'PeerUnreachableError';
}

/** Settings a test shortens; a service uses the defaults. */
export interface PeerSessionsOptions {
  /** The addresses a name resolves to (default: the system resolver, every address). */
  resolveHost?: (host: string) => Promise<string[]>;
  keepaliveIntervalMs?: number;
  keepaliveTimeoutMs?: number;
  connectTimeoutMs?: number;
}

const resolveWithSystem = async (host: string) => (await lookup(host, { all: true })).map((entry) => entry.address);

interface Endpoint {
  address: string;
  session?: ClientHttp2Session;
  /** Connection attempts that failed in a row; the next waits longer. */
  failures: number;
  /** No new connection before this time (ms since the epoch). */
  retryAt: number;
  lastError?: string;
  /** Calls opened since the last keepalive tick. */
  callsSinceTick: number;
}

/** `host:port` or `[v6]:port`, as `hostPort` in @atelier/config accepts it. */
function parseTarget(target: string): { host: string; port: number } {
  const match = /^(?:\[([0-9a-fA-F:]+)\]|([^:[\]]+)):(\d{1,5})$/.exec(target);
  if (!match) throw new Error(`gRPC target must be host:port, got "${target}"`);
  return { host: (match[1] ?? match[2])!, port: Number(match[3]) };
}

/** A socket's or resolver's error as it explains itself: `connect ECONNREFUSED 10.0.0.7:50051`, `getaddrinfo ENOTFOUND jobs`. */
const describeError = (error: unknown) => (error instanceof Error ? error.message : String(error));

/**
 * The HTTP/2 connections to one gRPC peer over mutual TLS: one per address its name resolves to
 * (every pod of a headless Service), calls spread round-robin over them. A connection that fails
 * is tried again after a backoff (250 ms doubling to 2 s); one that closes (the peer restarted,
 * or closed it at its maximum age) is replaced at the next call, after the name is resolved again.
 * Idle connections do not keep the process alive.
 */
export class PeerSessions {
  private readonly host: string;
  private readonly port: number;
  private readonly checkServerIdentity: ReturnType<typeof serverIdentityCheck>;
  private endpoints: Endpoint[] = [];
  private nextIndex = 0;
  private resolvedAt = Number.NEGATIVE_INFINITY;
  private resolving: Promise<void> | undefined;
  private resolutionError: string | undefined;
  private closed = false;

  constructor(
    readonly target: string,
    private readonly security: GrpcSecurity,
    private readonly serverName: string,
    private readonly options: PeerSessionsOptions = {},
  ) {
    ({ host: this.host, port: this.port } = parseTarget(target));
    this.checkServerIdentity = serverIdentityCheck(security, serverName);
    if (isIP(this.host)) {
      this.endpoints = [this.newEndpoint(this.host)];
      this.resolvedAt = Number.POSITIVE_INFINITY;
    }
  }

  /**
   * Opens a call's stream on the next connection, round-robin. Throws PeerUnreachableError when
   * no connection can carry it now (none resolved, all failing and backing off, or closed).
   */
  request(headers: OutgoingHttpHeaders): ClientHttp2Stream | Promise<ClientHttp2Stream> {
    if (this.closed) throw new PeerUnreachableError(`the client of ${this.target} is closed`);
    if (Date.now() - this.resolvedAt >= MIN_RESOLUTION_INTERVAL_MS && this.resolvedAt !== Number.POSITIVE_INFINITY) {
      const resolution = (this.resolving ??= this.resolve().finally(() => (this.resolving = undefined)));
      // The first call waits for the name; later ones go on with the addresses known meanwhile.
      if (this.endpoints.length === 0) return resolution.then(() => this.open(headers));
    }
    return this.open(headers);
  }

  /** Closes every connection; calls in flight finish, new ones fail. */
  close(): void {
    this.closed = true;
    for (const endpoint of this.endpoints) endpoint.session?.close();
    this.endpoints = [];
  }

  private open(headers: OutgoingHttpHeaders): ClientHttp2Stream {
    if (this.closed) throw new PeerUnreachableError(`the client of ${this.target} is closed`);
    const now = Date.now();
    const count = this.endpoints.length;
    for (let i = 0; i < count; i += 1) {
      const endpoint = this.endpoints[(this.nextIndex + i) % count]!;
      if (!endpoint.session && now < endpoint.retryAt) continue;
      this.nextIndex = (this.nextIndex + i + 1) % count;
      const session = endpoint.session ?? this.connect(endpoint);
      endpoint.callsSinceTick += 1;
      try {
        return session.request(headers, { endStream: false });
      } catch (error) {
        // A session that can open no more streams (closing, or out of stream ids) is replaced.
        this.detach(endpoint, session);
        session.destroy();
        throw new PeerUnreachableError(`cannot open a call to ${this.target}: ${describeError(error)}`, { cause: error });
      }
    }
    const lastError = this.endpoints.find((endpoint) => endpoint.lastError)?.lastError ?? this.resolutionError;
    throw new PeerUnreachableError(`no connection to ${this.target}${lastError ? ` (last error: ${lastError})` : ''}`);
  }

  private connect(endpoint: Endpoint): ClientHttp2Session {
    const authority = `https://${endpoint.address.includes(':') ? `[${endpoint.address}]` : endpoint.address}:${this.port}`;
    const session = http2.connect(authority, {
      ca: this.security.ca,
      cert: this.security.cert,
      key: this.security.key,
      // The expected identity as the TLS server name: the address is often an IP, which SNI may not carry.
      servername: this.serverName,
      checkServerIdentity: this.checkServerIdentity,
      settings: { enablePush: false },
      // As grpc-js sets them: Node's 10 MB session memory limit, once reached, degrades a busy
      // connection badly (streams refused with ENHANCE_YOUR_CALM) instead of bounding anything.
      maxSessionMemory: Number.MAX_SAFE_INTEGER,
      maxSendHeaderBlockLength: Number.MAX_SAFE_INTEGER,
    });
    session.unref();
    endpoint.session = session;
    let connected = false;
    const connectTimeoutMs = this.options.connectTimeoutMs ?? CONNECT_TIMEOUT_MS;
    const connectTimeout = setTimeout(
      () => session.destroy(new Error(`no TLS handshake with ${endpoint.address}:${this.port} within ${connectTimeoutMs} ms`)),
      connectTimeoutMs,
    ).unref();
    session.once('connect', () => {
      clearTimeout(connectTimeout);
      connected = true;
      endpoint.failures = 0;
      endpoint.lastError = undefined;
    });
    session.on('error', (error) => (endpoint.lastError = describeError(error)));
    // A server going away (shutting down, or at the connection's maximum age) finishes the calls
    // it has; new calls go to a new connection.
    session.once('goaway', () => this.detach(endpoint, session));
    const keepalive = setInterval(() => this.probe(endpoint, session), this.options.keepaliveIntervalMs ?? KEEPALIVE_INTERVAL_MS).unref();
    session.once('close', () => {
      clearTimeout(connectTimeout);
      clearInterval(keepalive);
      this.detach(endpoint, session);
      if (!connected) {
        endpoint.failures += 1;
        const backoff = Math.min(MAX_RECONNECT_BACKOFF_MS, INITIAL_RECONNECT_BACKOFF_MS * 2 ** (endpoint.failures - 1));
        endpoint.retryAt = Date.now() + backoff * (0.8 + Math.random() * 0.4);
      }
      // Where the peer is may have changed (a new pod, a new address): look again before long.
      if (this.resolvedAt !== Number.POSITIVE_INFINITY)
        this.resolvedAt = Math.min(this.resolvedAt, Date.now() - MIN_RESOLUTION_INTERVAL_MS);
    });
    return session;
  }

  /** Pings a connection that carried calls since the last tick; one that does not answer is closed. */
  private probe(endpoint: Endpoint, session: ClientHttp2Session): void {
    if (endpoint.callsSinceTick === 0 || session.connecting || session.closed || session.destroyed) return;
    endpoint.callsSinceTick = 0;
    const timeoutMs = this.options.keepaliveTimeoutMs ?? KEEPALIVE_TIMEOUT_MS;
    const timeout = setTimeout(() => {
      endpoint.lastError = `no answer to a keepalive ping in ${timeoutMs} ms`;
      session.destroy();
    }, timeoutMs).unref();
    const sent = session.ping((error) => {
      clearTimeout(timeout);
      if (error && !session.destroyed) session.destroy();
    });
    if (!sent) clearTimeout(timeout);
  }

  private detach(endpoint: Endpoint, session: ClientHttp2Session): void {
    if (endpoint.session === session) endpoint.session = undefined;
  }

  private newEndpoint(address: string): Endpoint {
    return { address, failures: 0, retryAt: 0, callsSinceTick: 0 };
  }

  private async resolve(): Promise<void> {
    this.resolvedAt = Date.now();
    try {
      const found = [...new Set(await (this.options.resolveHost ?? resolveWithSystem)(this.host))];
      if (found.length === 0) throw new Error('no address');
      this.resolutionError = undefined;
      if (this.closed) return;
      const known = new Map(this.endpoints.map((endpoint) => [endpoint.address, endpoint]));
      this.endpoints = found.map((address) => known.get(address) ?? this.newEndpoint(address));
      for (const [address, endpoint] of known) if (!found.includes(address)) endpoint.session?.close();
    } catch (error) {
      // The addresses known so far stay in use; with none, calls fail until the name resolves.
      this.resolutionError = `cannot resolve ${this.host}: ${describeError(error)}`;
    }
  }
}
