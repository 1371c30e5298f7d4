import { ApiFailure } from '../api/client';

export function Loading({ what }: { what: string }) {
  return (
    <div className="state loading" role="status">
      <span className="spinner" aria-hidden="true" /> Loading {what}…
    </div>
  );
}

export function Empty({ children }: { children: React.ReactNode }) {
  return <div className="state empty">{children}</div>;
}

export function ErrorState({ error }: { error: unknown }) {
  const failure = error instanceof ApiFailure ? error : undefined;
  return (
    <div className="state error" role="alert">
      <strong>{failure ? `${failure.status}${failure.code ? ` / ${failure.code}` : ''}` : 'Error'}</strong>{' '}
      {error instanceof Error ? error.message : String(error)}
      {failure?.requestId && <div className="muted">request id {failure.requestId}</div>}
    </div>
  );
}

export function Badge({ value }: { value: string }) {
  return <span className={`badge badge-${value}`}>{value}</span>;
}

export const when = (iso: string | null | undefined) => (iso ? new Date(iso).toLocaleString() : '—');
export const ms = (value: number | null | undefined) =>
  value === null || value === undefined
    ? '—'
    : value >= 60_000
      ? `${(value / 60_000).toFixed(1)} min`
      : value >= 1000
        ? `${(value / 1000).toFixed(1)} s`
        : `${value} ms`;
