import type { jobsAdminV1 } from '@atelier/contracts';
import { isTransientError } from '@atelier/errors';
import type { CliCommand } from './cli-args.js';
import type { CommandContext } from './command-context.js';
import { formatDeadLettersJson, formatDeadLettersTable, formatReplayAuditJson, formatReplayAuditTable } from './dead-letters-report.js';
import { errorText } from './error-text.js';
import { ExitCode, exitCodeFor, worstExitCode } from './exit-codes.js';
import { JOBS_ADMIN_API } from './operator-apis.js';
import { connectOperatorApi, peerError } from './operator-grpc.js';
import { defaultOperatorId } from './ops-config.js';
import { cliActor } from './operator-actor.js';

type ListCommand = Extract<CliCommand, { name: 'dead-letters list' }>;
type ReplayCommand = Extract<CliCommand, { name: 'dead-letters replay' }>;
type AuditCommand = Extract<CliCommand, { name: 'dead-letters audit' }>;

/** The admin API pages by at most 100 rows. */
const PAGE_SIZE_MAX = 100;

/** Follows a cursor across pages until `limit` rows; `more` when a page token is left over. */
async function collectPages<T>(
  limit: number,
  fetchPage: (pageSize: number, pageToken: string) => Promise<{ items: readonly T[]; nextPageToken: string }>,
): Promise<{ items: T[]; more: boolean }> {
  const items: T[] = [];
  let pageToken = '';
  do {
    const page = await fetchPage(Math.min(PAGE_SIZE_MAX, limit - items.length), pageToken);
    items.push(...page.items);
    pageToken = page.nextPageToken;
  } while (pageToken !== '' && items.length < limit);
  return { items, more: pageToken !== '' };
}

/** `atelier-ops dead-letters list`: dead outbox events, oldest first, up to --limit across pages. */
export async function listDeadLettersCommand(command: ListCommand, { io, config }: CommandContext): Promise<ExitCode> {
  const admin = connectOperatorApi(JOBS_ADMIN_API, config, config.ATELIER_OPS_TIMEOUT_MS);
  try {
    const { items: events, more } = await collectPages<jobsAdminV1.OutboxEvent>(command.limit, async (pageSize, pageToken) => {
      const page = await admin.listDeadOutboxEvents({ pageSize, pageToken });
      return { items: page.events, nextPageToken: page.nextPageToken };
    });
    io.stdout.write(command.json ? formatDeadLettersJson(events, more) : formatDeadLettersTable(events, more));
    return ExitCode.OK;
  } catch (error) {
    throw peerError(error, JOBS_ADMIN_API, config.JOBS_ADDR, config.ATELIER_NAMESPACE);
  } finally {
    admin.close();
  }
}

/** `atelier-ops dead-letters audit`: every replay call jobs recorded, newest first, up to --limit across pages. */
export async function auditDeadLettersCommand(command: AuditCommand, { io, config }: CommandContext): Promise<ExitCode> {
  const admin = connectOperatorApi(JOBS_ADMIN_API, config, config.ATELIER_OPS_TIMEOUT_MS);
  try {
    const { items: replays, more } = await collectPages<jobsAdminV1.OutboxReplay>(command.limit, async (pageSize, pageToken) => {
      const page = await admin.listOutboxReplays({ pageSize, pageToken });
      return { items: page.replays, nextPageToken: page.nextPageToken };
    });
    io.stdout.write(command.json ? formatReplayAuditJson(replays, more) : formatReplayAuditTable(replays, more));
    return ExitCode.OK;
  } catch (error) {
    throw peerError(error, JOBS_ADMIN_API, config.JOBS_ADDR, config.ATELIER_NAMESPACE);
  } finally {
    admin.close();
  }
}

/**
 * `atelier-ops dead-letters replay <id>...`: each event back to pending, one call each. A
 * refusal (not dead, unknown) is reported and the next id tried; an unreachable jobs service
 * ends the run, since every further call would fail the same way.
 */
export async function replayDeadLettersCommand(command: ReplayCommand, { io, config }: CommandContext): Promise<ExitCode> {
  const operatorId = command.operator ?? config.ATELIER_OPERATOR_ID ?? defaultOperatorId(io.env);
  const admin = connectOperatorApi(JOBS_ADMIN_API, config, config.ATELIER_OPS_TIMEOUT_MS);
  const outcomes: ExitCode[] = [];
  try {
    for (const [index, eventId] of command.eventIds.entries()) {
      try {
        const { event } = await admin.replayOutboxEvent({
          eventId,
          operatorId,
          actor: cliActor(command, config, io.env),
        });
        io.stdout.write(
          `replayed ${eventId}: ${event?.eventType ?? 'event'} of job ${event?.aggregateId ?? '?'} is pending again; the relay publishes it shortly\n`,
        );
        outcomes.push(ExitCode.OK);
      } catch (caught) {
        const error = peerError(caught, JOBS_ADMIN_API, config.JOBS_ADDR, config.ATELIER_NAMESPACE);
        io.stderr.write(`atelier-ops: ${eventId} not replayed: ${errorText(error, { debug: config.ATELIER_OPS_DEBUG })}\n`);
        outcomes.push(exitCodeFor(error));
        if (isTransientError(error)) {
          const rest = command.eventIds.slice(index + 1);
          if (rest.length > 0) io.stderr.write(`atelier-ops: not attempted: ${rest.join(' ')}\n`);
          break;
        }
      }
    }
  } finally {
    admin.close();
  }
  return worstExitCode(outcomes);
}
