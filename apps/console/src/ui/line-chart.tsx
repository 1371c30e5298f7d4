import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

export interface Series {
  label: string;
  color: string;
  values: (number | null)[];
  /** Marks every value: a series with gaps (null) has lone values that no line would show. */
  points?: boolean;
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
        series: [
          {},
          ...series.map((s) => ({
            label: s.label,
            stroke: s.color,
            width: 2,
            fill: `${s.color}22`,
            ...(s.points ? { points: { show: true, size: 6, fill: s.color } } : {}),
          })),
        ],
        axes: [{}, { size: 50 }],
        // Counts and durations: from 0, so a flat series reads as what it is.
        scales: { y: { range: (_chart, _min, max) => [0, max > 0 ? max * 1.1 : 1] } },
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
