import { commonV1, type catalogV1 } from '@atelier/contracts';
import type { PromiseClient } from '@atelier/grpc';
import type { Logger } from '@atelier/logging';
import { catalogChangesSubject, type NatsConnection } from '@atelier/nats';
import { unrunnableModels, type UnrunnableModel } from '../domain/catalog-coverage.js';

/** How long after a failed read of the catalog the check tries again. */
const RETRY_AFTER_FAILURE_MS = 5_000;
const MEDIA_KINDS = [commonV1.MediaKind.IMAGE, commonV1.MediaKind.VIDEO] as const;

/** What /readyz says of the catalog: whether it was read yet, and the enabled models this worker cannot run. */
export interface CatalogCoverageStatus {
  checked: boolean;
  unrunnable: UnrunnableModel[];
}

/**
 * The worker's check that it can run every enabled model (domain/catalog-coverage.ts): at start-up,
 * again after each catalog change notice, and every few seconds while the catalog cannot be read.
 * Until the catalog was read once the worker is not held back (a catalog outage must not stop job
 * processing); once read, an unrunnable model makes /readyz 503 and names it.
 */
export class CatalogCoverageCheck {
  private current: CatalogCoverageStatus = { checked: false, unrunnable: [] };
  private running: Promise<void> | undefined;
  private again = false;
  private retry: NodeJS.Timeout | undefined;
  private subscription: ReturnType<NatsConnection['subscribe']> | undefined;
  private stopped = false;

  constructor(
    private readonly options: {
      catalog: PromiseClient<catalogV1.CatalogServiceClient>;
      providerCodes: ReadonlySet<string>;
      logger: Logger;
    },
  ) {}

  status(): CatalogCoverageStatus {
    return this.current;
  }

  /** Whether nothing known stops this worker from running the catalog. */
  covers(): boolean {
    return this.current.unrunnable.length === 0;
  }

  /** Starts the first check (not awaited by callers that must not wait for catalog) and listens for changes. */
  start(nats: NatsConnection, prefix: string): Promise<void> {
    this.subscription = nats.subscribe(catalogChangesSubject(prefix), { callback: () => void this.check() });
    return this.check();
  }

  /** Runs a check; one asked for while another runs is run once after it (coalesced). */
  check(): Promise<void> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = this.runOnce().finally(() => {
      this.running = undefined;
      if (this.again && !this.stopped) {
        this.again = false;
        void this.check();
      }
    });
    return this.running;
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.retry);
    this.subscription?.unsubscribe();
  }

  private async runOnce(): Promise<void> {
    const { catalog, providerCodes, logger } = this.options;
    try {
      const answers = await Promise.all(MEDIA_KINDS.map((mediaKind) => catalog.getCatalog({ mediaKind })));
      const unrunnable = unrunnableModels(
        answers.flatMap((answer) => answer.models),
        providerCodes,
      );
      if (unrunnable.length > 0) logger.error({ unrunnable }, 'enabled catalog models this worker cannot run: not ready');
      else if (this.current.unrunnable.length > 0) logger.info('this worker can run every enabled catalog model again');
      this.current = { checked: true, unrunnable };
    } catch (error) {
      logger.warn({ err: error }, `catalog not readable for the model check; trying again in ${RETRY_AFTER_FAILURE_MS} ms`);
      if (!this.stopped) this.retry = setTimeout(() => void this.check(), RETRY_AFTER_FAILURE_MS);
    }
  }
}
