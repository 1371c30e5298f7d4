/**
 * The pixel sides every image in Atelier keeps within, inclusive: uploads (media), the sizes a job
 * may ask for (gateway, jobs), what the vendor renders at (provider-sim) and the outputs the worker
 * accepts. One rule, so an image one service accepts is never refused by the next. The database
 * CHECKs of media.assets and jobs.generation_jobs repeat the numbers (migrations are history);
 * a test in each service compares them with these.
 */
export const MIN_IMAGE_SIDE_PX = 64;
export const MAX_IMAGE_SIDE_PX = 8192;

/** The rule in words, for messages and API descriptions: "64–8192 px". */
export const IMAGE_SIDE_RANGE = `${MIN_IMAGE_SIDE_PX}–${MAX_IMAGE_SIDE_PX} px`;

/** Whether one side, in pixels, is a whole number within the limits. */
export function isImageSideAllowed(side: number): boolean {
  return Number.isInteger(side) && side >= MIN_IMAGE_SIDE_PX && side <= MAX_IMAGE_SIDE_PX;
}

/**
 * What is wrong with an image of this size, as the end of a sentence ("20x9000 px; each side must
 * be 64–8192 px"), or undefined when both sides are allowed.
 */
export function imageSizeProblem(width: number, height: number): string | undefined {
  if (isImageSideAllowed(width) && isImageSideAllowed(height)) return undefined;
  return `${width}x${height} px; each side must be ${IMAGE_SIDE_RANGE}`;
}
