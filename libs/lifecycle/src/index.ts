export { installShutdownHandlers, type ShutdownOptions, type ShutdownHandle } from './shutdown.js';
