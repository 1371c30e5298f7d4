import type { OpsConfig } from './ops-config.js';

/** Where a command writes. process.stdout in production; a buffer in tests. */
export interface TextSink {
  write(text: string): unknown;
}

export interface CliIo {
  readonly stdout: TextSink;
  readonly stderr: TextSink;
  readonly env: NodeJS.ProcessEnv;
}

/** What every command runs with: its output streams and the validated environment. */
export interface CommandContext {
  readonly io: CliIo;
  readonly config: OpsConfig;
}
