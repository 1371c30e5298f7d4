export { ExpiringCache } from './expiring-cache.js';
