import { TERMINAL_JOB_STATUSES, type jobsV1, type mediaV1 } from '@atelier/contracts';
import { ExpiringCache } from '@atelier/caching';
import type { PromiseClient } from '@atelier/grpc';
import type { Counter } from '@atelier/metrics';
import { toJobDto, withOutputUrl, type JobDto } from './dto-mapper.js';
import { OutputLinks, type OutputLink } from './output-links.js';

/** Terminal views kept, and for how long at most (see FinishedJobCache). */
export const TERMINAL_VIEW_CACHE_SIZE = 5_000;
export const TERMINAL_VIEW_TTL_MS = 10 * 60_000;
/** Longer prompts are not kept: they would make the bound in entries a poor bound in bytes. */
const MAX_CACHED_PROMPT_CHARS = 2_000;

interface TerminalView {
  /** The user jobs answered this view to: its owner (GetJob, ListJobs and CancelJob are owner-only). */
  ownerUserId: string;
  /** The view without a download URL (the URL is renewed on its own schedule, see OutputLinks). */
  view: JobDto;
  outputAssetId: string | undefined;
  /** The last answer with a URL, for as long as OutputLinks hands out that same URL. */
  answered?: { link: OutputLink; view: JobDto };
}

/**
 * A terminal view is kept TERMINAL_VIEW_TTL_MS at most, and never past the moment retention is due
 * to change it (its prompts redacted, its input image deleted: docs/retention.md); a view past
 * that moment whose change is not done yet expires at once.
 */
function terminalViewExpiry(job: jobsV1.Job): number {
  const redaction = job.inputsRedactedAt ? undefined : job.inputsRedactAt;
  const dueChanges = [redaction, job.inputImageDeleteAt].filter((at) => at !== undefined).map((at) => at.getTime());
  return Math.min(Date.now() + TERMINAL_VIEW_TTL_MS, ...dueChanges);
}

/**
 * Jobs as the app sees them, with a download URL of the output once the job succeeded.
 *
 * A job that succeeded, failed or was cancelled never changes again, so every terminal view the
 * gateway receives (GetJob, ListJobs items, a cancel's answer, a replayed create, the last event
 * of a job's stream) is remembered, and a later GetJob of that job by the same user is answered
 * from memory without asking jobs. Only the owner's reads are: the entry holds the user jobs
 * answered it to, and anyone else's read goes to jobs as before (404, exactly as for a job that
 * does not exist, and as slow). The output URL is not part of what is remembered: each answer
 * takes it from OutputLinks, which renews it within its reuse deadline (≤ 30 s, never past half
 * its life), so a cached view never hands out an expired or nearly expired URL, and an output
 * deleted since (media refuses the lookup) is answered without one within 30 s.
 *
 * What can still make a remembered view stale is its job disappearing: an account deletion deletes
 * the user's finished jobs (jobs' db/account-deletion-sql.ts) and tells no gateway, so a replica
 * that remembered one answers it to the same user for at most TERMINAL_VIEW_TTL_MS more (retention
 * archives a job's events, never the job). Retention changes an ended job too (its prompts
 * redacted, its input image deleted), from a due time the view carries: a view is forgotten at it
 * and not remembered again until the change is done (terminalViewExpiry). Entries are bounded (TERMINAL_VIEW_CACHE_SIZE, oldest
 * out first; a few MB).
 */
export class FinishedJobCache {
  private readonly links: OutputLinks;
  private readonly terminal = new ExpiringCache<string, TerminalView>(TERMINAL_VIEW_CACHE_SIZE);

  constructor(
    media: PromiseClient<mediaV1.MediaServiceClient>,
    private readonly lookups?: Counter<'result'>,
    /** Shared with the media routes (the gallery's URLs, deletes); one of its own when absent. */
    links?: OutputLinks,
  ) {
    this.links = links ?? new OutputLinks(media);
  }

  /** The view of a job jobs answered to `callerUserId`; a terminal one is remembered. */
  async view(job: jobsV1.Job, callerUserId: string): Promise<JobDto> {
    const view = toJobDto(job);
    if (TERMINAL_JOB_STATUSES.has(job.status) && job.prompt.length + job.negativePrompt.length <= MAX_CACHED_PROMPT_CHARS) {
      this.terminal.set(job.id, { ownerUserId: callerUserId, view, outputAssetId: job.outputAssetId }, terminalViewExpiry(job));
    }
    return this.withOutput(view, job.outputAssetId, callerUserId);
  }

  /**
   * The remembered terminal view of the caller's own job, or undefined: the job is not terminal,
   * not seen yet, forgotten, or not the caller's — ask jobs (counted as a miss).
   */
  remembered(jobId: string, callerUserId: string): Promise<JobDto> | undefined {
    const entry = this.terminal.get(jobId);
    if (!entry || entry.ownerUserId !== callerUserId) {
      this.lookups?.inc({ result: 'miss' });
      return undefined;
    }
    this.lookups?.inc({ result: 'hit' });
    return this.rememberedWithOutput(entry, callerUserId);
  }

  private async rememberedWithOutput(entry: TerminalView, callerUserId: string): Promise<JobDto> {
    if (!entry.outputAssetId) return entry.view;
    const link = await this.links.get(entry.outputAssetId, callerUserId);
    if (!link) return entry.view;
    if (entry.answered?.link !== link) entry.answered = { link, view: withOutputUrl(entry.view, link) };
    return entry.answered.view;
  }

  private async withOutput(view: JobDto, outputAssetId: string | undefined, callerUserId: string): Promise<JobDto> {
    if (!outputAssetId) return view;
    const link = await this.links.get(outputAssetId, callerUserId);
    return link ? withOutputUrl(view, link) : view;
  }
}
