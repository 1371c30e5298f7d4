import { AppError, ErrorCode } from '@atelier/errors';
import type { JobCredentials, UserKey } from '../job-credentials.js';
import type { OutputLimits } from './output-limits.js';
import type { PlatformKey } from './platform-key.js';
import { HttpProviderClient, type ProviderClient } from './provider-client.js';

/** Whose key a call to the vendor runs with: the id names it (ledger, logs), never the key. */
export type JobCredential =
  { mode: 'platform_key'; id: string; apiKey: string } | { mode: 'user_key'; id: string; apiKey: string; label: string; keyHint: string };

export interface ProviderEndpoint {
  baseUrl: string;
  output: OutputLimits;
}

/**
 * The worker's vendor clients, bound to a credential: the platform's key (read at each call, so a
 * rotation applies at once) or a user's key for one job. One endpoint per provider code.
 */
export class ProviderClients {
  /** The platform key's client per provider code (the catalog coverage check reads the codes). */
  readonly platform: ReadonlyMap<string, ProviderClient>;

  constructor(
    private readonly endpoints: ReadonlyMap<string, ProviderEndpoint>,
    private readonly platformKey: () => PlatformKey,
    private readonly credentials: JobCredentials,
    /** Wraps a client on the platform's key (the provider's shared request-rate cap); none: as is. */
    private readonly limitPlatform: (providerCode: string, client: ProviderClient) => ProviderClient = (_code, client) => client,
  ) {
    this.platform = new Map(
      [...endpoints].map(([code, endpoint]) => [
        code,
        limitPlatform(code, new HttpProviderClient({ ...endpoint, apiKey: () => platformKey().apiKey })),
      ]),
    );
  }

  platformCredential(): JobCredential {
    const { apiKey, id } = this.platformKey();
    return { mode: 'platform_key', id, apiKey };
  }

  /**
   * A client of this provider calling with this credential; undefined for a provider the worker
   * has no endpoint for. `decorate` wraps the vendor's HTTP client before the platform's rate cap
   * does (the usage ledger's recording: a call's latency is the vendor's, not the wait for a permit).
   */
  clientFor(
    providerCode: string,
    credential: JobCredential,
    decorate: (client: ProviderClient) => ProviderClient = (client) => client,
  ): ProviderClient | undefined {
    const endpoint = this.endpoints.get(providerCode);
    if (!endpoint) return undefined;
    if (credential.mode === 'platform_key') {
      const client = decorate(new HttpProviderClient({ ...endpoint, apiKey: () => this.platformKey().apiKey }));
      return this.limitPlatform(providerCode, client);
    }
    return decorate(new HttpProviderClient({ ...endpoint, apiKey: credential.apiKey }));
  }

  /** A user-key job's credential, for the attempt holding its lease (jobs refuses anyone else: its AppError is thrown). */
  async userCredential(jobId: string, signal?: AbortSignal): Promise<JobCredential> {
    return userKeyCredential(await this.credentials.forAttempt(jobId, signal));
  }

  /**
   * The client (and its credential) to cancel a job's recorded prediction with, the job being
   * over: its user's key when it ran with one (jobs hands it out for that prediction only), else
   * the platform's.
   */
  async forCancel(
    jobId: string,
    providerCode: string,
    predictionId: string,
  ): Promise<{ client: ProviderClient; credential: JobCredential } | undefined> {
    let credential: JobCredential;
    try {
      credential = userKeyCredential(await this.credentials.forCancel(jobId, predictionId));
    } catch (error) {
      // A job jobs no longer has went with its account, and the user's keys with it: only the
      // platform's key is left to cancel with (a prediction on a user's key then stays the user's).
      const platform = error instanceof AppError && (error.reason === 'JOB_USES_PLATFORM_KEY' || error.code === ErrorCode.NOT_FOUND);
      if (!platform) throw error;
      credential = this.platformCredential();
    }
    const client = this.clientFor(providerCode, credential);
    return client ? { client, credential } : undefined;
  }

  reportRefused(jobId: string): Promise<void> {
    return this.credentials.reportRefused(jobId);
  }
}

function userKeyCredential(key: UserKey): JobCredential {
  return { mode: 'user_key', id: key.credentialId, apiKey: key.apiKey, label: key.label, keyHint: key.keyHint };
}
