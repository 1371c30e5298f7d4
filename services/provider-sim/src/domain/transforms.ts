import sharp, { type Channels, type Matrix3x3, type Sharp } from 'sharp';
import { MAX_IMAGE_SIDE_PX } from '@atelier/images';

/** The model that enlarges instead of stylising. */
export const UPSCALE_MODEL = 'sim-upscale';
/** Styles with a transform of their own; any other style (or none) negates the image. */
export const STYLES = ['watercolor', 'pixel-art', 'sketch', 'pop-art', 'vintage'] as const;

export interface TransformRequest {
  model: string;
  style?: string;
  /** Output size for stylising models; one side alone keeps the aspect ratio. */
  width?: number;
  height?: number;
  /** Upscale factor of UPSCALE_MODEL (default 2). */
  scale?: 2 | 4;
}

interface RawImage {
  data: Buffer;
  info: { width: number; height: number; channels: Channels };
}

type Step = (image: Sharp, size: { width: number; height: number }) => Sharp;

/*
 * sharp runs the operations of one pipeline in its own fixed order, not in the order they are
 * chained (and keeps only the last resize). Each step therefore runs as a pipeline of its own
 * over raw pixels, which makes "downscale, then upscale" or "edges, then negate" mean just that.
 */
async function toRaw(image: Sharp): Promise<RawImage> {
  const { data, info } = await image.raw().toBuffer({ resolveWithObject: true });
  return { data, info: { width: info.width, height: info.height, channels: info.channels } };
}

function open(image: RawImage): Sharp {
  return sharp(image.data, { raw: image.info });
}

async function applySteps(image: RawImage, steps: readonly Step[]): Promise<RawImage> {
  let current = image;
  for (const step of steps) current = await toRaw(step(open(current), current.info));
  return current;
}

/** The largest size within maxSide per side with the aspect ratio of width × height. */
export function fitWithin(width: number, height: number, maxSide: number): { width: number; height: number } {
  const factor = Math.min(1, maxSide / Math.max(width, height));
  return { width: Math.max(1, Math.round(width * factor)), height: Math.max(1, Math.round(height * factor)) };
}

const PIXEL_BLOCK = 12;
const LAPLACIAN = { width: 3, height: 3, kernel: [-1, -1, -1, -1, 8, -1, -1, -1, -1] };
const SEPIA: Matrix3x3 = [
  [0.393, 0.769, 0.189],
  [0.349, 0.686, 0.168],
  [0.272, 0.534, 0.131],
];

const STYLE_STEPS: Readonly<Record<(typeof STYLES)[number], readonly Step[]>> = {
  // Soft, bleeding colours: a blur that grows with the picture, then richer saturation.
  watercolor: [
    (image, { width, height }) => image.blur(Math.max(2, Math.min(width, height) / 150)),
    (image) => image.modulate({ saturation: 1.8, brightness: 1.05 }),
  ],
  // Big square pixels: shrink to 1/12 with nearest neighbour, then blow back up the same way.
  'pixel-art': [
    (image, { width, height }) =>
      image.resize(Math.max(1, Math.round(width / PIXEL_BLOCK)), Math.max(1, Math.round(height / PIXEL_BLOCK)), {
        kernel: 'nearest',
        fit: 'fill',
      }),
  ],
  // Pencil lines: edges of the luminance, stretched to full range, dark on white.
  sketch: [
    (image) => image.greyscale(),
    (image) => image.convolve(LAPLACIAN),
    (image) => image.normalise(),
    (image) => image.negate({ alpha: false }),
  ],
  // Poster colours: contrast doubled around mid-grey, then saturation tripled.
  'pop-art': [(image) => image.linear(2, -128), (image) => image.modulate({ saturation: 3 })],
  vintage: [(image) => image.recomb(SEPIA)],
};

function isStyle(style: string | undefined): style is (typeof STYLES)[number] {
  return (STYLES as readonly (string | undefined)[]).includes(style);
}

/** Decodes any input sharp reads into opaque RGB (EXIF orientation applied, alpha on white). */
async function decode(input: Buffer): Promise<RawImage> {
  return toRaw(sharp(input).rotate().flatten({ background: '#ffffff' }).toColourspace('srgb'));
}

async function upscale(image: RawImage, scale: 2 | 4): Promise<RawImage> {
  const target = fitWithin(image.info.width * scale, image.info.height * scale, MAX_IMAGE_SIDE_PX);
  return applySteps(image, [(pipeline) => pipeline.resize(target.width, target.height, { kernel: 'lanczos3', fit: 'fill' })]);
}

async function stylise(image: RawImage, request: TransformRequest): Promise<RawImage> {
  const sized =
    request.width !== undefined || request.height !== undefined
      ? await applySteps(image, [(pipeline) => pipeline.resize(request.width, request.height, { fit: 'cover' })])
      : image;
  const capped = fitWithin(sized.info.width, sized.info.height, MAX_IMAGE_SIDE_PX);
  const bounded =
    capped.width === sized.info.width && capped.height === sized.info.height
      ? sized
      : await applySteps(sized, [(pipeline) => pipeline.resize(capped.width, capped.height, { fit: 'fill' })]);
  if (isStyle(request.style)) {
    const styled = await applySteps(bounded, STYLE_STEPS[request.style]);
    // Steps that change the size (pixel-art's shrink) are brought back to the requested size.
    if (styled.info.width === bounded.info.width && styled.info.height === bounded.info.height) return styled;
    return applySteps(styled, [(pipeline) => pipeline.resize(bounded.info.width, bounded.info.height, { kernel: 'nearest', fit: 'fill' })]);
  }
  return applySteps(bounded, [(pipeline) => pipeline.negate({ alpha: false })]);
}

/**
 * The vendor's work: a PNG visibly different from the input. `sim-upscale` enlarges by `scale`
 * (lanczos3, at most MAX_IMAGE_SIDE_PX per side); every other model applies the style at the input
 * size, or at width/height when given.
 */
export async function transformImage(input: Buffer, request: TransformRequest): Promise<Buffer> {
  const decoded = await decode(input);
  const result = request.model === UPSCALE_MODEL ? await upscale(decoded, request.scale ?? 2) : await stylise(decoded, request);
  return open(result).png().toBuffer();
}
