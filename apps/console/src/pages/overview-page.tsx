import { useQuery } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { api, unwrap } from '../api/client';
import type { paths } from '../api/schema';
import { LineChart } from '../ui/line-chart';
import { Empty, ErrorState, Loading, ms } from '../ui/states';

const WINDOWS = [60, 180, 720, 1440];

type QueueBucket = paths['/admin-api/overview']['get']['responses'][200]['content']['application/json']['queueHistory'][number];

/** The on-call view: what ended, what fails, what waits, from GET /admin-api/overview. */
export function OverviewPage() {
  const [windowMinutes, setWindow] = useState(60);
  const overview = useQuery({
    queryKey: ['overview', windowMinutes],
    queryFn: async () => unwrap(await api.GET('/admin-api/overview', { params: { query: { windowMinutes } } })),
    // A read costs in proportion to the window's events (bench:overview): the long windows, in
    // 5- and 15-minute buckets, refresh once a minute.
    refetchInterval: windowMinutes <= 180 ? 10_000 : 60_000,
  });
  const totals = useMemo(() => {
    const data = overview.data;
    if (!data) return undefined;
    // Every bucket of the window, empty ones as zeros: the answer lists only non-empty ones.
    const step = data.bucketMinutes * 60;
    const buckets = new Map<number, { succeeded: number; failed: number; cancelled: number }>();
    for (let t = Date.parse(data.windowStart) / 1000; t <= Date.parse(data.generatedAt) / 1000; t += step) {
      buckets.set(t, { succeeded: 0, failed: 0, cancelled: 0 });
    }
    for (const row of data.throughput) {
      const t = Date.parse(row.bucketStart) / 1000;
      const bucket = buckets.get(t) ?? { succeeded: 0, failed: 0, cancelled: 0 };
      bucket.succeeded += row.succeeded;
      bucket.failed += row.failed;
      bucket.cancelled += row.cancelled;
      buckets.set(t, bucket);
    }
    const times = [...buckets.keys()].sort((a, b) => a - b);
    const pick = (key: 'succeeded' | 'failed' | 'cancelled') => times.map((t) => buckets.get(t)![key]);
    return { times, succeeded: pick('succeeded'), failed: pick('failed'), cancelled: pick('cancelled') };
  }, [overview.data]);
  const queue = useMemo(() => {
    const history = overview.data?.queueHistory;
    if (!history) return undefined;
    // A bucket without claims has no wait to draw: a gap, not a zero.
    const wait = (pick: (b: QueueBucket) => number) => history.map((b) => (b.queueWait.count > 0 ? pick(b) / 1000 : null));
    return {
      times: history.map((b) => Date.parse(b.bucketStart) / 1000),
      queued: history.map((b) => b.queuedAtEnd),
      waitP50: wait((b) => b.queueWait.p50Ms),
      waitP99: wait((b) => b.queueWait.p99Ms),
    };
  }, [overview.data]);

  if (overview.isPending) return <Loading what="the overview" />;
  if (overview.isError) return <ErrorState error={overview.error} />;
  const data = overview.data;
  const ready = data.queues.reduce((sum, q) => sum + q.ready, 0);
  const oldest = Math.max(0, ...data.queues.map((q) => q.oldestReadyAgeMs));
  const ended = (totals?.succeeded.reduce((a, b) => a + b, 0) ?? 0) + (totals?.failed.reduce((a, b) => a + b, 0) ?? 0);
  const failed = totals?.failed.reduce((a, b) => a + b, 0) ?? 0;
  return (
    <section>
      <header className="page-header">
        <h1>Overview</h1>
        <label>
          Window{' '}
          <select value={windowMinutes} onChange={(e) => setWindow(Number(e.target.value))}>
            {WINDOWS.map((w) => (
              <option key={w} value={w}>
                last {w / 60} h
              </option>
            ))}
          </select>
        </label>
      </header>
      <div className="tiles">
        <Tile label="Queued (due)" value={String(ready)} alarm={false} />
        <Tile label="Oldest queued" value={ms(oldest)} alarm={oldest > 60_000} />
        <Tile
          label="Failure rate"
          value={ended ? `${((failed / ended) * 100).toFixed(1)} %` : '—'}
          alarm={ended > 0 && failed / ended > 0.05}
        />
        <Tile label="Outbox dead" value={String(data.outbox.dead)} alarm={data.outbox.dead > 0} />
        <Tile label="Outbox pending" value={String(data.outbox.pending)} alarm={data.outbox.oldestPendingAgeMs > 60_000} />
        <Tile label="Expired leases" value={String(data.expiredLeases)} alarm={data.expiredLeases > 0} />
        <Tile label="Live workers" value={String(data.workers.length)} alarm={false} />
      </div>
      {/* Counted over each allowance's own period (the UTC day, the UTC month), not the window. */}
      <h2>Users the generation quota refused</h2>
      <div className="tiles">
        <Tile label="Daily allowance used up, today" value={String(data.quotaHits.daily)} alarm={false} />
        <Tile label="Monthly allowance used up, this month" value={String(data.quotaHits.monthly)} alarm={false} />
        <Tile label="Too many in flight, today" value={String(data.quotaHits.inFlight)} alarm={false} />
      </div>
      <div className="charts">
        {totals && data.throughput.length > 0 ? (
          <>
            <LineChart
              title="Jobs ended per bucket"
              times={totals.times}
              series={[
                { label: 'succeeded', color: '#2e7d32', values: totals.succeeded },
                { label: 'failed', color: '#c62828', values: totals.failed },
                { label: 'cancelled', color: '#757575', values: totals.cancelled },
              ]}
            />
            <LineChart
              title="Failures per bucket"
              times={totals.times}
              series={[{ label: 'failed', color: '#c62828', values: totals.failed }]}
            />
          </>
        ) : (
          <Empty>No job ended in this window.</Empty>
        )}
        {queue && (
          <>
            <LineChart
              title="Queued at the end of each bucket"
              times={queue.times}
              series={[{ label: 'queued', color: '#1565c0', values: queue.queued }]}
            />
            <LineChart
              title="Queue wait of the claims per bucket (s)"
              times={queue.times}
              series={[
                { label: 'p50', color: '#6a1b9a', values: queue.waitP50, points: true },
                { label: 'p99', color: '#ef6c00', values: queue.waitP99, points: true },
              ]}
            />
          </>
        )}
      </div>
      <div className="columns">
        <div>
          <h2>Queues now</h2>
          <table>
            <thead>
              <tr>
                <th>Queue</th>
                <th>Ready</th>
                <th>Delayed</th>
                <th>Running</th>
                <th>Oldest ready</th>
              </tr>
            </thead>
            <tbody>
              {data.queues.map((q) => (
                <tr key={q.queue}>
                  <td>{q.queue}</td>
                  <td>{q.ready}</td>
                  <td>{q.delayed}</td>
                  <td>{q.running}</td>
                  <td>{ms(q.oldestReadyAgeMs)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        <div>
          <h2>Wait and run time</h2>
          {data.latencies.length === 0 ? (
            <Empty>No attempt in this window.</Empty>
          ) : (
            <table>
              <thead>
                <tr>
                  <th>Job type</th>
                  <th>Wait p50</th>
                  <th>p90</th>
                  <th>p99</th>
                  <th>Run p50</th>
                  <th>p90</th>
                  <th>p99</th>
                </tr>
              </thead>
              <tbody>
                {data.latencies.map((l) => (
                  <tr key={l.jobType}>
                    <td>{l.jobType}</td>
                    <td>{ms(l.queueWait.p50Ms)}</td>
                    <td>{ms(l.queueWait.p90Ms)}</td>
                    <td>{ms(l.queueWait.p99Ms)}</td>
                    <td>{ms(l.runTime.p50Ms)}</td>
                    <td>{ms(l.runTime.p90Ms)}</td>
                    <td>{ms(l.runTime.p99Ms)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </div>
      </div>
      <p className="muted">
        As of {new Date(data.generatedAt).toLocaleString()}, {data.bucketMinutes}-minute buckets.
      </p>
    </section>
  );
}

function Tile({ label, value, alarm }: { label: string; value: string; alarm: boolean }) {
  return (
    <div className={`tile${alarm ? ' alarm' : ''}`}>
      <div className="tile-value">{value}</div>
      <div className="tile-label">{label}</div>
    </div>
  );
}
