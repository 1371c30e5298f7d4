import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../api/client';
import { Empty, ErrorState, Loading, when } from '../ui/states';
import { useMay } from '../api/operator';

const KIND_TITLES: Record<string, string> = {
  prediction_without_job: 'Prediction without a job',
  job_with_two_billable_predictions: 'Job billed twice',
  ledger_unknown_to_vendor: 'Ledger call the vendor does not know',
};

/**
 * Reconciliation with the vendor (GET /admin-api/reconciliation/findings): what the vendor billed
 * that no job explains, or the other way round; an operator acknowledges each one.
 */
export function ReconciliationFindings() {
  const may = useMay();
  const client = useQueryClient();
  const findings = useQuery({
    queryKey: ['reconciliation-findings'],
    queryFn: async () => unwrap(await api.GET('/admin-api/reconciliation/findings', { params: { query: { limit: 50 } } })),
    refetchInterval: 30_000,
  });
  const acknowledge = useMutation({
    mutationFn: async (id: string) =>
      unwrap(await api.POST('/admin-api/reconciliation/findings/{id}/acknowledge', { params: { path: { id } } })),
    onSettled: () => client.invalidateQueries({ queryKey: ['reconciliation-findings'] }),
  });

  if (findings.isPending) return <Loading what="the reconciliation findings" />;
  if (findings.isError) return <ErrorState error={findings.error} />;
  const { items, openTotal, coverage } = findings.data;
  return (
    <>
      <p className="muted" data-coverage>
        {coverage.length === 0
          ? 'No reconciliation run has finished yet.'
          : coverage.map((c) => `${c.provider}: reconciled up to ${when(c.coveredUntil)}, last run ${when(c.lastFinishedAt)}`).join(' · ')}
      </p>
      <div className="tiles">
        <div className={`tile${openTotal > 0 ? ' alarm' : ''}`}>
          <div className="tile-value">{openTotal}</div>
          <div className="tile-label">Open findings</div>
        </div>
      </div>
      {acknowledge.isError && <ErrorState error={acknowledge.error} />}
      {items.length === 0 ? (
        <Empty>The vendor&apos;s predictions and the ledger agree.</Empty>
      ) : (
        <table data-table="findings">
          <thead>
            <tr>
              <th>Found</th>
              <th>Provider</th>
              <th>Finding</th>
              <th>Prediction</th>
              <th>Job</th>
              <th>Detail</th>
              <th>Acknowledged</th>
            </tr>
          </thead>
          <tbody>
            {items.map((finding) => (
              <tr key={finding.id} data-finding={finding.id} className={finding.acknowledgedAt ? '' : 'failed'}>
                <td>{when(finding.foundAt)}</td>
                <td>{finding.provider}</td>
                <td>{KIND_TITLES[finding.kind] ?? finding.kind}</td>
                <td>
                  <code>{finding.vendorId || '—'}</code>
                </td>
                <td>{finding.jobId ? <a href={`#/jobs/${finding.jobId}`}>{finding.jobId.slice(0, 8)}…</a> : '—'}</td>
                <td className="muted">{finding.detail}</td>
                <td>
                  {finding.acknowledgedAt
                    ? `${when(finding.acknowledgedAt)} by ${finding.acknowledgedBy}`
                    : may('POST /admin-api/reconciliation/findings/{id}/acknowledge') && (
                        <button disabled={acknowledge.isPending} onClick={() => acknowledge.mutate(finding.id)}>
                          Acknowledge
                        </button>
                      )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}
