import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../api/client';
import { Empty, ErrorState, Loading, when } from '../ui/states';

/** Workers holding a live lease and what each runs (the overview's workers, refreshed every 5 s). */
export function WorkersPage() {
  const overview = useQuery({
    queryKey: ['overview', 60],
    queryFn: async () => unwrap(await api.GET('/admin-api/overview', { params: { query: { windowMinutes: 60 } } })),
    refetchInterval: 5000,
  });
  if (overview.isPending) return <Loading what="workers" />;
  if (overview.isError) return <ErrorState error={overview.error} />;
  const workers = overview.data.workers;
  return (
    <section>
      <header className="page-header">
        <h1>Workers</h1>
      </header>
      {workers.length === 0 ? (
        <Empty>No worker is running a job right now (an idle worker holds no lease and is not listed).</Empty>
      ) : (
        workers.map((worker) => (
          <div className="card" key={worker.workerId}>
            <h2>{worker.workerId}</h2>
            <p className="muted">last lease renewal {when(worker.lastLeaseRenewalAt)}</p>
            <table>
              <thead>
                <tr>
                  <th>Job</th>
                  <th>Type</th>
                  <th>Attempt</th>
                  <th>Started</th>
                  <th>Lease until</th>
                </tr>
              </thead>
              <tbody>
                {worker.jobs.map((job) => (
                  <tr key={job.jobId}>
                    <td>
                      <a href={`#/jobs/${job.jobId}`}>{job.jobId.slice(-12)}</a>
                    </td>
                    <td>{job.jobType}</td>
                    <td>{job.attempt}</td>
                    <td>{when(job.startedAt)}</td>
                    <td>{when(job.leaseExpiresAt)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        ))
      )}
    </section>
  );
}
