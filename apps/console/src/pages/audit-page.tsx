import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { api, unwrap } from '../api/client';
import type { paths } from '../api/schema';
import { Badge, Empty, ErrorState, Loading, when } from '../ui/states';

type Filters = NonNullable<paths['/admin-api/audit']['get']['parameters']['query']>;
type Snapshot = Record<string, unknown> | null;

/** The keys an edit changed, each with its value before and after (a created or deleted target shows every key). */
function changes(before: Snapshot, after: Snapshot): [string, unknown, unknown][] {
  const keys = [...new Set([...Object.keys(before ?? {}), ...Object.keys(after ?? {})])];
  return keys
    .map((key): [string, unknown, unknown] => [key, before?.[key], after?.[key]])
    .filter(([, was, is]) => JSON.stringify(was) !== JSON.stringify(is));
}

const shown = (value: unknown) => (value === undefined ? '—' : typeof value === 'string' ? value : JSON.stringify(value));

/** The operators' actions of every service, newest first, with filters and a cursor page at a time. */
export function AuditPage() {
  const [filters, setFilters] = useState<Filters>({});
  const [cursors, setCursors] = useState<string[]>([]);
  const cursor = cursors.at(-1);
  const audit = useQuery({
    queryKey: ['audit', filters, cursor],
    queryFn: async () => unwrap(await api.GET('/admin-api/audit', { params: { query: { ...filters, cursor, limit: 25 } } })),
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
  const text = (key: 'action' | 'operator' | 'target' | 'outcome', placeholder: string) => (
    <input
      aria-label={key}
      placeholder={placeholder}
      defaultValue={filters[key]}
      onBlur={(e) => set({ [key]: e.target.value.trim() || undefined })}
    />
  );

  return (
    <section>
      <header className="page-header">
        <h1>Audit</h1>
        <span className="muted">every operator action, kept for good; nobody can change or delete an entry</span>
      </header>
      <form className="filters" onSubmit={(e) => e.preventDefault()}>
        <select
          aria-label="service"
          value={filters.service ?? ''}
          onChange={(e) => set({ service: (e.target.value || undefined) as Filters['service'] })}
        >
          <option value="">every service</option>
          <option>jobs</option>
          <option>catalog</option>
        </select>
        {text('action', 'action, e.g. job.retry')}
        {text('operator', 'operator')}
        {text('target', 'target, e.g. model:patbond-v1')}
        {text('outcome', 'outcome, e.g. ok')}
      </form>
      {audit.isPending ? (
        <Loading what="the audit" />
      ) : audit.isError ? (
        <ErrorState error={audit.error} />
      ) : audit.data.items.length === 0 ? (
        <Empty>No operator action matches these filters.</Empty>
      ) : (
        <table className="audit">
          <thead>
            <tr>
              <th>When</th>
              <th>Action</th>
              <th>Operator</th>
              <th>Route</th>
              <th>Target</th>
              <th>Outcome</th>
              <th>Change</th>
            </tr>
          </thead>
          <tbody>
            {audit.data.items.map((entry) => (
              <tr key={entry.id} data-audit={entry.action}>
                <td>{when(entry.occurredAt)}</td>
                <td>
                  {entry.action} <span className="muted">({entry.service})</span>
                </td>
                <td>
                  {entry.operator} <span className="muted">· {entry.role}</span>
                </td>
                <td className="muted">{entry.route}</td>
                <td>{entry.target}</td>
                <td>
                  <Badge value={entry.outcome} />
                </td>
                <td className="change">
                  {changes(entry.before as Snapshot, entry.after as Snapshot).map(([key, was, is]) => (
                    <div key={key}>
                      <b>{key}</b>: <s className="muted">{shown(was)}</s> → {shown(is)}
                    </div>
                  ))}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <nav className="pager">
        <button disabled={cursors.length === 0} onClick={() => setCursors((c) => c.slice(0, -1))}>
          ← Newer
        </button>
        <button
          disabled={!audit.data?.nextCursor}
          onClick={() => audit.data?.nextCursor && setCursors((c) => [...c, audit.data.nextCursor!])}
        >
          Older →
        </button>
        {audit.isFetching && <span className="spinner" aria-label="refreshing" />}
      </nav>
    </section>
  );
}
