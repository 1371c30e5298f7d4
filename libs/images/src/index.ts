/** Image facts from bytes, shared by media (uploads, server puts) and the worker (provider outputs). */
export { probeImage, type ImageFacts, type ImageType } from './image-probe.js';
