import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

export interface Series {
  label: string;
  color: string;
  values: (number | null)[];
}

/** A time series chart (uPlot): x in seconds since the epoch, one line per series. */
export function LineChart({ title, times, series, height = 200 }: { title: string; times: number[]; series: Series[]; height?: number }) {
  const host = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const element = host.current;
    if (!element) return;
    const chart = new uPlot(
      {
        title,
        width: Math.max(element.clientWidth, 300),
        height,
        series: [{}, ...series.map((s) => ({ label: s.label, stroke: s.color, width: 2, fill: `${s.color}22` }))],
        axes: [{}, { size: 50 }],
      },
      [times, ...series.map((s) => s.values)],
      element,
    );
    const resize = new ResizeObserver(() => chart.setSize({ width: Math.max(element.clientWidth, 300), height }));
    resize.observe(element);
    return () => {
      resize.disconnect();
      chart.destroy();
    };
  }, [title, times, series, height]);
  return <div className="chart" ref={host} data-chart={title} />;
}
