export { installShutdownHandlers, type ShutdownOptions, type ShutdownHandle } from './shutdown.js';
export { backoffDelayMs, retryWithBackoff, type BackoffOptions, type RetryOptions } from './backoff.js';
export { startPeriodicTask, type PeriodicTask, type PeriodicTaskOptions } from './periodic-task.js';
