// What one peer's run measured, in the shape bench/pipeline.ts compares against ours.

export interface PeerRun {
  /** Its name and version (and, for BullMQ, Redis's fsync mode), as the tables print it. */
  system: string;
  drain: {
    jobs: number;
    jobsPerSecond: number;
    /** CPU ms each of its processes spent on the drain (bench/process-cpu.ts). */
    cpuMs: Record<string, number>;
    scenario: string;
    detail: string;
  };
  /** add→start of one job at a time, ms. */
  startLatency: { samples: number; p50: number; p99: number };
}
