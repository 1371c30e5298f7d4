export { MicroBatcher } from './micro-batcher.js';
