import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../api/client';
import { money } from '../ui/money';
import { Empty, ErrorState, Loading, ms, when } from '../ui/states';

/** Budgets warn from this share of the day's limit (the AtelierProviderBudgetHigh alert's ratio). */
const WARN_RATIO = 0.8;

/**
 * The providers' gates (GET /admin-api/provider-budgets and /provider-limits): each daily budget
 * as a gauge of today's spend on our key, and each cap of the vendor's with what runs and what
 * waits for it now.
 */
export function ProviderGates() {
  const budgets = useQuery({
    queryKey: ['provider-budgets'],
    queryFn: async () => unwrap(await api.GET('/admin-api/provider-budgets')),
    refetchInterval: 10_000,
  });
  const limits = useQuery({
    queryKey: ['provider-limits'],
    queryFn: async () => unwrap(await api.GET('/admin-api/provider-limits')),
    refetchInterval: 5_000,
  });
  return (
    <div className="columns">
      <div>
        <h2>Daily budgets</h2>
        {budgets.isPending ? (
          <Loading what="the budgets" />
        ) : budgets.isError ? (
          <ErrorState error={budgets.error} />
        ) : budgets.data.items.length === 0 ? (
          <Empty>No provider has a daily budget: nothing holds spend back.</Empty>
        ) : (
          <div className="tiles">
            {budgets.data.items.map((budget) => {
              const ratio = budget.usedRatio;
              const level = ratio >= 1 ? 'over' : ratio >= WARN_RATIO ? 'warn' : '';
              const scope = budget.providerModel ? `${budget.providerCode}/${budget.providerModel}` : budget.providerCode;
              return (
                <div key={scope} className={`tile${ratio >= WARN_RATIO ? ' alarm' : ''}`} data-budget={scope}>
                  <div className="tile-value">{Math.round(ratio * 100)} %</div>
                  <div className="tile-label">
                    {scope}: {money(budget.spentTodayMicros, budget.currency)} of {money(budget.dailyLimitMicros, budget.currency)} today
                    {ratio >= 1 && ' — new jobs wait for tomorrow or a raised limit'}
                  </div>
                  <div className="gauge" role="meter" aria-label={`budget of ${scope}`} aria-valuenow={Math.round(ratio * 100)}>
                    <div className={`gauge-fill ${level}`} style={{ width: `${Math.min(100, ratio * 100)}%` }} />
                  </div>
                </div>
              );
            })}
          </div>
        )}
      </div>
      <div>
        <h2>The vendors&apos; limits</h2>
        {limits.isPending ? (
          <Loading what="the limits" />
        ) : limits.isError ? (
          <ErrorState error={limits.error} />
        ) : limits.data.items.length === 0 ? (
          <Empty>No cap is set: every worker sends as it may.</Empty>
        ) : (
          <table data-table="provider-limits">
            <thead>
              <tr>
                <th>Provider</th>
                <th>Running / cap</th>
                <th>Waiting</th>
                <th>Longest wait</th>
                <th>Requests/s</th>
                <th>Vendor throttle</th>
              </tr>
            </thead>
            <tbody>
              {limits.data.items.map((limit) => {
                const scope = limit.providerModel ? `${limit.providerCode}/${limit.providerModel}` : limit.providerCode;
                return (
                  <tr key={scope} data-limit={scope}>
                    <td>{scope}</td>
                    <td>
                      {limit.running} / {limit.maxConcurrent ?? '∞'}
                    </td>
                    <td>{limit.waiting}</td>
                    <td>{limit.waiting > 0 ? ms(limit.oldestWaitingMs) : '—'}</td>
                    <td>
                      {limit.maxRequestsPerSecond === null
                        ? '∞'
                        : `${limit.maxRequestsPerSecond} (burst ${limit.burst ?? limit.maxRequestsPerSecond})`}
                    </td>
                    <td>{limit.pausedUntil ? `paused until ${when(limit.pausedUntil)}` : '—'}</td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        )}
      </div>
    </div>
  );
}
