/** Image facts from bytes and the size limits every image keeps, shared by media, jobs, the worker, the gateway and provider-sim. */
export { probeImage, type ImageFacts, type ImageType } from './image-probe.js';
export { MIN_IMAGE_SIDE_PX, MAX_IMAGE_SIDE_PX, IMAGE_SIDE_RANGE, isImageSideAllowed, imageSizeProblem } from './image-limits.js';
