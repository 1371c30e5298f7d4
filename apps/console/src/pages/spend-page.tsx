import { useQuery } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { api, unwrap } from '../api/client';
import { LineChart } from '../ui/line-chart';
import { Empty, ErrorState, Loading } from '../ui/states';
import { money } from '../ui/money';
import { ProviderGates } from './provider-gates';
import { ReconciliationFindings } from './reconciliation-findings';

const WINDOWS = [1, 7, 30, 92];
const COST_CHART = 'Cost per day, in millionths of the currency';
const COLORS = ['#1565c0', '#2e7d32', '#ef6c00', '#6a1b9a', '#c62828'];

/** What the AI vendors were paid (GET /admin-api/spend): per day, provider and model, the users who cost most. */
export function SpendPage() {
  const [days, setDays] = useState(7);
  const spend = useQuery({
    queryKey: ['spend', days],
    queryFn: async () => unwrap(await api.GET('/admin-api/spend', { params: { query: { days } } })),
    refetchInterval: 30_000,
  });
  // One line per currency, every day of the window (a day without spend is a zero).
  const chart = useMemo(() => {
    const data = spend.data;
    if (!data) return undefined;
    const times: number[] = [];
    for (let t = Date.parse(data.from); t <= Date.parse(data.to); t += 86_400_000) times.push(t / 1000);
    const currencies = [...new Set(data.days.map((d) => d.currency))];
    const series = currencies.map((currency, i) => ({
      label: currency || 'unpriced',
      color: COLORS[i % COLORS.length]!,
      points: true,
      values: times.map((t) => {
        const day = new Date(t * 1000).toISOString().slice(0, 10);
        const row = data.days.find((d) => d.day === day && d.currency === currency);
        return row ? row.costMicros : 0;
      }),
    }));
    return { times, series };
  }, [spend.data]);

  if (spend.isPending) return <Loading what="the spend" />;
  if (spend.isError) return <ErrorState error={spend.error} />;
  const data = spend.data;
  return (
    <section>
      <header className="page-header">
        <h1>Spend</h1>
        <label>
          Window{' '}
          <select value={days} onChange={(e) => setDays(Number(e.target.value))}>
            {WINDOWS.map((d) => (
              <option key={d} value={d}>
                {d === 1 ? 'today' : `last ${d} days`}
              </option>
            ))}
          </select>
        </label>
      </header>
      <div className="tiles">
        {data.totals.length === 0 ? (
          <div className="tile">
            <div className="tile-value">0</div>
            <div className="tile-label">Paid to vendors</div>
          </div>
        ) : (
          data.totals.map((total) => (
            <div className="tile" key={total.currency} data-total={total.currency}>
              <div className="tile-value">{money(total.costMicros, total.currency)}</div>
              <div className="tile-label">
                Paid to vendors, {total.billablePredictions} billed prediction{total.billablePredictions === 1 ? '' : 's'}
              </div>
            </div>
          ))
        )}
      </div>
      <ProviderGates />
      <div className="charts">
        {chart && chart.series.length > 0 ? (
          // Vendor prices are fractions of a cent: whole millionths keep the axis readable.
          <LineChart title={COST_CHART} times={chart.times} series={chart.series} />
        ) : (
          <Empty>Nothing was paid to a vendor in this window.</Empty>
        )}
      </div>
      <div className="columns">
        <div>
          <h2>Per provider</h2>
          <SpendTable
            head={['Provider']}
            rows={data.providers.map((row) => ({ key: `${row.providerCode}/${row.currency}`, cells: [row.providerCode], ...row }))}
          />
        </div>
        <div>
          <h2>Per model</h2>
          <SpendTable
            head={['Model', 'Version']}
            rows={data.models.map((row) => ({
              key: `${row.providerCode}/${row.providerModel}@${row.modelVersion}/${row.currency}`,
              cells: [`${row.providerCode}/${row.providerModel}`, row.modelVersion],
              ...row,
            }))}
          />
        </div>
      </div>
      <h2>Users who cost most</h2>
      {data.topUsers.length === 0 ? (
        <Empty>No user cost anything in this window.</Empty>
      ) : (
        <table data-table="top-users">
          <thead>
            <tr>
              <th>User</th>
              <th>Jobs</th>
              <th>Cost</th>
            </tr>
          </thead>
          <tbody>
            {data.topUsers.map((user, i) => (
              <tr key={`${user.userId ?? 'deleted'}-${user.currency}-${i}`}>
                <td>{user.userId === null ? <span className="muted">deleted account</span> : user.userId}</td>
                <td>{user.jobs}</td>
                <td>{money(user.costMicros, user.currency)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <h2>Reconciliation with the vendor</h2>
      <ReconciliationFindings />
      <p className="muted">
        From {new Date(data.from).toLocaleString()} to {new Date(data.to).toLocaleString()}: the cost of every billed vendor prediction (the
        usage ledger), platform keys and users&apos; own keys alike.
      </p>
    </section>
  );
}

interface SpendLine {
  key: string;
  cells: string[];
  currency: string;
  costMicros: number;
  billablePredictions: number;
  predictTimeMs: number;
  images: number;
}

function SpendTable({ head, rows }: { head: string[]; rows: SpendLine[] }) {
  if (rows.length === 0) return <Empty>None in this window.</Empty>;
  return (
    <table>
      <thead>
        <tr>
          {head.map((h) => (
            <th key={h}>{h}</th>
          ))}
          <th>Predictions</th>
          <th>Predict time</th>
          <th>Cost</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => (
          <tr key={row.key}>
            {row.cells.map((cell, i) => (
              <td key={i}>{cell}</td>
            ))}
            <td>{row.billablePredictions}</td>
            <td>{(row.predictTimeMs / 1000).toFixed(1)} s</td>
            <td>{money(row.costMicros, row.currency)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
