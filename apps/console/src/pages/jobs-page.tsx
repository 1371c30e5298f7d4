import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { api, unwrap } from '../api/client';
import type { paths } from '../api/schema';
import { Badge, Empty, ErrorState, Loading, when } from '../ui/states';

type Filters = NonNullable<paths['/admin-api/jobs']['get']['parameters']['query']>;
const STATUSES = ['queued', 'running', 'succeeded', 'failed', 'cancelled'] as const;

/** Every user's jobs, filtered, a cursor page at a time, refreshed every 5 s. */
export function JobsPage() {
  const [filters, setFilters] = useState<Filters>({});
  const [cursors, setCursors] = useState<string[]>([]);
  const [live, setLive] = useState(true);
  const cursor = cursors.at(-1);
  const jobs = useQuery({
    queryKey: ['jobs', filters, cursor],
    queryFn: async () => unwrap(await api.GET('/admin-api/jobs', { params: { query: { ...filters, cursor, limit: 25 } } })),
    refetchInterval: live ? 5000 : false,
    placeholderData: keepPreviousData,
  });
  const set = (patch: Filters) => {
    setFilters((current) => {
      const next = { ...current, ...patch };
      for (const key of Object.keys(next) as (keyof Filters)[]) if (next[key] === '' || next[key] === undefined) delete next[key];
      return next;
    });
    setCursors([]);
  };
  const localToIso = (value: string) => (value ? new Date(value).toISOString() : undefined);

  return (
    <section>
      <header className="page-header">
        <h1>Jobs</h1>
        <label>
          <input type="checkbox" checked={live} onChange={(e) => setLive(e.target.checked)} /> live refresh
        </label>
      </header>
      <form className="filters" onSubmit={(e) => e.preventDefault()}>
        <select
          aria-label="status"
          value={filters.status ?? ''}
          onChange={(e) => set({ status: (e.target.value || undefined) as Filters['status'] })}
        >
          <option value="">any status</option>
          {STATUSES.map((s) => (
            <option key={s}>{s}</option>
          ))}
        </select>
        <input
          aria-label="job type"
          placeholder="job type"
          defaultValue={filters.jobType}
          onBlur={(e) => set({ jobType: e.target.value || undefined })}
        />
        <input
          aria-label="user"
          placeholder="user id"
          defaultValue={filters.userId}
          onBlur={(e) => set({ userId: e.target.value || undefined })}
        />
        <label>
          from{' '}
          <input type="datetime-local" aria-label="created after" onChange={(e) => set({ createdAfter: localToIso(e.target.value) })} />
        </label>
        <label>
          to{' '}
          <input type="datetime-local" aria-label="created before" onChange={(e) => set({ createdBefore: localToIso(e.target.value) })} />
        </label>
      </form>
      {jobs.isPending ? (
        <Loading what="jobs" />
      ) : jobs.isError ? (
        <ErrorState error={jobs.error} />
      ) : jobs.data.items.length === 0 ? (
        <Empty>No job matches these filters.</Empty>
      ) : (
        <table>
          <thead>
            <tr>
              <th>Job</th>
              <th>Type</th>
              <th>Status</th>
              <th>User</th>
              <th>Attempts</th>
              <th>Error</th>
              <th>Created</th>
            </tr>
          </thead>
          <tbody>
            {jobs.data.items.map((job) => (
              <tr key={job.id} data-job={job.id}>
                <td>
                  <a href={`#/jobs/${job.id}`}>{job.id.slice(-12)}</a>
                </td>
                <td>{job.jobType}</td>
                <td>
                  <Badge value={job.status} />
                </td>
                <td>{job.userId}</td>
                <td>
                  {job.attempts.count}/{job.attempts.max}
                </td>
                <td className="muted">
                  {job.error?.code ?? ''} {job.internalErrorMessage ?? ''}
                </td>
                <td>{when(job.createdAt)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <nav className="pager">
        <button disabled={cursors.length === 0} onClick={() => setCursors((c) => c.slice(0, -1))}>
          ← Newer
        </button>
        <button disabled={!jobs.data?.nextCursor} onClick={() => jobs.data?.nextCursor && setCursors((c) => [...c, jobs.data.nextCursor!])}>
          Older →
        </button>
        {jobs.isFetching && <span className="spinner" aria-label="refreshing" />}
      </nav>
    </section>
  );
}
