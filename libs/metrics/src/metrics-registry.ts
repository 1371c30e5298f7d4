import { Registry, collectDefaultMetrics } from 'prom-client';

/**
 * A service's Prometheus registry: the process metrics every Node service has (CPU, memory, event
 * loop lag, GC) under their standard names, and a `service` label on every series so dashboards
 * can tell services apart wherever they are scraped from.
 */
export function createMetricsRegistry(service: string): Registry {
  const registry = new Registry();
  registry.setDefaultLabels({ service });
  collectDefaultMetrics({ register: registry });
  return registry;
}
