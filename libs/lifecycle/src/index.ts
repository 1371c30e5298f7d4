export { installShutdownHandlers, type ShutdownOptions, type ShutdownHandle } from './shutdown.js';
export { GRACEFUL_SHUTDOWN, forcedExitMs, type ShutdownPolicy } from './shutdown-policy.js';
export { runService, type ServiceBoot, type RunningService } from './run-service.js';
export { backoffDelayMs, retryWithBackoff, type BackoffOptions, type RetryOptions } from './backoff.js';
export { startPeriodicTask, type PeriodicTask, type PeriodicTaskOptions } from './periodic-task.js';
export { BatchedSweep, sweepInBatches, type BatchedSweepOptions, type SweepInBatchesOptions, type SweptBatch } from './batched-sweep.js';
export { Closers } from './closers.js';
export { runGrpcService, type GrpcServiceApp, type GrpcServiceBoot } from './run-grpc-service.js';
