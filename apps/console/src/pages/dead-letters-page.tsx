import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../api/client';
import { Badge, Empty, ErrorState, Loading, when } from '../ui/states';
import { useMay } from '../api/operator';

/** Outbox rows that exhausted their publish attempts, a replay button each, and the replay audit. */
export function DeadLettersPage() {
  const may = useMay();
  const client = useQueryClient();
  const dead = useQuery({
    queryKey: ['dead'],
    queryFn: async () => unwrap(await api.GET('/admin-api/outbox/dead', { params: { query: { limit: 50 } } })),
  });
  const audit = useQuery({
    queryKey: ['replays'],
    queryFn: async () => unwrap(await api.GET('/admin-api/outbox/replays', { params: { query: { limit: 50 } } })),
  });
  const replay = useMutation({
    mutationFn: async (id: string) => unwrap(await api.POST('/admin-api/outbox/{id}/replay', { params: { path: { id } } })),
    onSettled: () => Promise.all([client.invalidateQueries({ queryKey: ['dead'] }), client.invalidateQueries({ queryKey: ['replays'] })]),
  });
  return (
    <section>
      <header className="page-header">
        <h1>Dead letters</h1>
      </header>
      {replay.isError && <ErrorState error={replay.error} />}
      {dead.isPending ? (
        <Loading what="dead letters" />
      ) : dead.isError ? (
        <ErrorState error={dead.error} />
      ) : dead.data.items.length === 0 ? (
        <Empty>No dead letter: every outbox event was published.</Empty>
      ) : (
        <table>
          <thead>
            <tr>
              <th>Id</th>
              <th>Event</th>
              <th>Subject</th>
              <th>Aggregate</th>
              <th>Attempts</th>
              <th>Last error</th>
              <th>Created</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {dead.data.items.map((row) => (
              <tr key={row.id} data-outbox={row.id}>
                <td>{row.id}</td>
                <td>{row.eventType}</td>
                <td>{row.subject}</td>
                <td>{row.aggregateId}</td>
                <td>{row.attemptCount}</td>
                <td className="muted">{row.lastError}</td>
                <td>{when(row.createdAt)}</td>
                <td>
                  {may('POST /admin-api/outbox/{id}/replay') && (
                    <button disabled={replay.isPending} onClick={() => replay.mutate(row.id)}>
                      Replay
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <h2>Replay audit</h2>
      {audit.isPending ? (
        <Loading what="the audit" />
      ) : audit.isError ? (
        <ErrorState error={audit.error} />
      ) : audit.data.items.length === 0 ? (
        <Empty>Nobody has replayed anything yet.</Empty>
      ) : (
        <table className="audit">
          <thead>
            <tr>
              <th>When</th>
              <th>Outbox row</th>
              <th>Operator</th>
              <th>Result</th>
            </tr>
          </thead>
          <tbody>
            {audit.data.items.map((row) => (
              <tr key={row.id} data-replay={row.outboxId}>
                <td>{when(row.replayedAt)}</td>
                <td>{row.outboxId}</td>
                <td>{row.operatorId}</td>
                <td>
                  <Badge value={row.result} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
