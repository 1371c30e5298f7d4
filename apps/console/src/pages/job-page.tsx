import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../api/client';
import { money } from '../ui/money';
import { Badge, Empty, ErrorState, Loading, ms, when } from '../ui/states';
import { useMay } from '../api/operator';

const FINISHED = new Set(['succeeded', 'failed', 'cancelled']);

/** One job's whole story (GET /admin-api/jobs/{id}): its events, its attempts, cancel and retry. */
export function JobPage({ jobId }: { jobId: string }) {
  const client = useQueryClient();
  const details = useQuery({
    queryKey: ['job', jobId],
    queryFn: async () => unwrap(await api.GET('/admin-api/jobs/{jobId}', { params: { path: { jobId } } })),
    refetchInterval: (query) => (query.state.data && FINISHED.has(query.state.data.job.status) ? false : 2000),
  });
  // Read again whenever the job's status changes: a finished job's calls are all recorded by then.
  const status = details.data?.job.status;
  const calls = useQuery({
    queryKey: ['job-calls', jobId, status],
    queryFn: () => fetchCalls(jobId),
    refetchInterval: status && FINISHED.has(status) ? false : 2000,
  });
  const may = useMay();
  const cancel = useMutation({
    mutationFn: async () => unwrap(await api.POST('/admin-api/jobs/{jobId}/cancel', { params: { path: { jobId } } })),
    onSettled: () => client.invalidateQueries({ queryKey: ['job', jobId] }),
  });
  const retry = useMutation({
    mutationFn: async () => unwrap(await api.POST('/admin-api/jobs/{jobId}/retry', { params: { path: { jobId } } })),
    onSuccess: (answer) => {
      window.location.hash = `#/jobs/${answer.job.id}`;
    },
  });

  if (details.isPending) return <Loading what="the job" />;
  if (details.isError) return <ErrorState error={details.error} />;
  const { job, events, attempts } = details.data;
  return (
    <section>
      <header className="page-header">
        <h1>
          Job <code>{job.id}</code> <Badge value={job.status} />
        </h1>
        <div className="actions">
          {may('POST /admin-api/jobs/{jobId}/cancel') && (
            <button disabled={FINISHED.has(job.status) || cancel.isPending} onClick={() => cancel.mutate()}>
              Cancel
            </button>
          )}
          {may('POST /admin-api/jobs/{jobId}/retry') && (
            <button disabled={job.status !== 'failed' || retry.isPending} onClick={() => retry.mutate()}>
              Retry
            </button>
          )}
        </div>
      </header>
      {cancel.isError && <ErrorState error={cancel.error} />}
      {retry.isError && <ErrorState error={retry.error} />}
      <dl className="facts">
        <dt>Type</dt>
        <dd>{job.jobType}</dd>
        <dt>User</dt>
        <dd>{job.userId}</dd>
        <dt>Queue</dt>
        <dd>{job.queue}</dd>
        <dt>Attempts</dt>
        <dd>
          {job.attempts.count}/{job.attempts.max}
        </dd>
        <dt>Created</dt>
        <dd>{when(job.createdAt)}</dd>
        <dt>Total</dt>
        <dd>{ms(job.timings?.totalMs)}</dd>
        <dt>Error</dt>
        <dd>{job.error ? `${job.error.code}: ${job.internalErrorMessage ?? job.error.message}` : '—'}</dd>
        <dt>Provider request</dt>
        <dd>{job.providerRequestId ?? '—'}</dd>
        {job.outputSha256 && (
          <>
            <dt>Output SHA-256</dt>
            <dd>
              <code>{job.outputSha256}</code>
            </dd>
          </>
        )}
        {job.retryOfJobId && (
          <>
            <dt>Retry of</dt>
            <dd>
              <a href={`#/jobs/${job.retryOfJobId}`}>{job.retryOfJobId}</a>
            </dd>
          </>
        )}
      </dl>
      <h2>Timeline</h2>
      <ol className="timeline">
        {events.map((event) => (
          <li key={event.id} className={event.errorCode ? 'failed' : ''}>
            <time>{when(event.at)}</time>{' '}
            <strong>
              {event.from ?? '∅'} → {event.to}
            </strong>{' '}
            attempt {event.attempt}, by {event.actor}
            {event.errorCode && (
              <div className="muted">
                {event.errorCode} ({event.errorClass}) {event.detail}
              </div>
            )}
          </li>
        ))}
      </ol>
      <h2>Attempts</h2>
      <table>
        <thead>
          <tr>
            <th>#</th>
            <th>Waited</th>
            <th>Ran</th>
            <th>Outcome</th>
            <th>Worker</th>
            <th>Error</th>
          </tr>
        </thead>
        <tbody>
          {attempts.map((a) => (
            <tr key={a.attempt}>
              <td>{a.attempt}</td>
              <td>{ms(a.queuedWaitMs)}</td>
              <td>{ms(a.runMs)}</td>
              <td>{a.outcome ?? 'running'}</td>
              <td>{a.claimedBy}</td>
              <td className="muted">
                {a.errorCode} {a.errorDetail}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <h2>Vendor calls</h2>
      {calls.isPending ? (
        <Loading what="the vendor calls" />
      ) : calls.isError ? (
        <ErrorState error={calls.error} />
      ) : (
        <VendorCalls data={calls.data} />
      )}
    </section>
  );
}

type CallsAnswer = Awaited<ReturnType<typeof fetchCalls>>;
const fetchCalls = async (jobId: string) =>
  unwrap(await api.GET('/admin-api/jobs/{jobId}/provider-calls', { params: { path: { jobId } } }));

/** The job's calls to the AI vendor from the usage ledger, and what its billed predictions cost. */
function VendorCalls({ data }: { data: CallsAnswer }) {
  if (data.calls.length === 0) return <Empty>This job made no call to a vendor.</Empty>;
  const cost = data.cost.length === 0 ? 'nothing billed' : data.cost.map((c) => money(c.costMicros, c.currency)).join(' + ');
  return (
    <>
      <p data-job-cost>
        Cost <strong>{cost}</strong>, {data.billablePredictions} billed prediction{data.billablePredictions === 1 ? '' : 's'},{' '}
        {data.calls.length} call{data.calls.length === 1 ? '' : 's'}.
      </p>
      <table data-table="vendor-calls">
        <thead>
          <tr>
            <th>When</th>
            <th>#</th>
            <th>Call</th>
            <th>Prediction</th>
            <th>Outcome</th>
            <th>Latency</th>
            <th>Key</th>
            <th>Billed</th>
          </tr>
        </thead>
        <tbody>
          {data.calls.map((call) => (
            <tr key={call.id} className={call.outcome === 'ok' ? '' : 'failed'}>
              <td>{when(call.calledAt)}</td>
              <td>{call.attempt}</td>
              <td>{call.kind}</td>
              <td>
                <code>{call.vendorId || '—'}</code>
              </td>
              <td>
                {call.outcome}
                {call.httpStatus !== null && ` (${call.httpStatus})`}
                {call.errorCode && <div className="muted">{call.errorCode}</div>}
              </td>
              <td>{ms(call.latencyMs)}</td>
              <td className="muted">
                {call.credentialMode === 'user_key' ? "user's key" : 'platform key'} {call.credentialId}
              </td>
              <td>
                {call.billable
                  ? `${call.predictTimeMs === null ? '' : `${(call.predictTimeMs / 1000).toFixed(1)} s → `}${call.costMicros === null ? 'unpriced' : money(call.costMicros, call.currency ?? '')}`
                  : ''}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}
