import sharp, { type Channels, type Matrix3x3, type Sharp } from 'sharp';
import { MAX_IMAGE_SIDE_PX } from '@atelier/images';

/** The model that enlarges instead of stylising. */
export const UPSCALE_MODEL = 'sim-upscale';
/**
 * Styles with a transform of their own; any other style (or none) negates the image. The first
 * four are the catalog's (migration 0004); the others are those it seeded before, which jobs
 * created then still name.
 */
export const STYLES = ['healing', '3d', 'comic', 'watercolor', 'pixel-art', 'sketch', 'pop-art', 'vintage'] as const;

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

type SharpStep = (image: Sharp, size: { width: number; height: number }) => Sharp;
/** Work on the pixels themselves, for what sharp has no operation for (posterizing, ink lines). */
type PixelStep = { pixels: (image: RawImage) => RawImage };
type Step = SharpStep | PixelStep;

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
  for (const step of steps) current = typeof step === 'function' ? await toRaw(step(open(current), current.info)) : step.pixels(current);
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

/** A blur's sigma that grows with the picture (1 / per of its shorter side), at least 1. */
const smoothing = ({ width, height }: { width: number; height: number }, per: number) => Math.max(1, Math.min(width, height) / per);
const EMBOSS = { width: 3, height: 3, kernel: [-2, -1, 0, -1, 1, 1, 0, 1, 2] };
/** Colour levels per channel of the comic style's flat colours. */
const COMIC_LEVELS = 4;
/** Luminance gradient (Sobel, 0–1442) above which a pixel is drawn as an ink line. */
const COMIC_EDGE_THRESHOLD = 60;

/**
 * Comic colouring: each channel cut to COMIC_LEVELS flat levels, and black ink where the luminance
 * changes sharply (a Sobel gradient over the threshold), i.e. along the outlines of shapes.
 */
const comicInk: PixelStep = {
  pixels({ data, info }) {
    const { width, height, channels } = info;
    const luminance = new Uint8Array(width * height);
    for (let p = 0, i = 0; p < luminance.length; p += 1, i += channels) {
      luminance[p] = channels >= 3 ? Math.round(0.299 * data[i]! + 0.587 * data[i + 1]! + 0.114 * data[i + 2]!) : data[i]!;
    }
    const levelStep = 255 / (COMIC_LEVELS - 1);
    const level = Uint8Array.from({ length: 256 }, (_, value) => Math.round(Math.round(value / levelStep) * levelStep));
    const out = Buffer.alloc(data.length);
    for (let y = 0; y < height; y += 1) {
      // Rows and columns past the border repeat the border.
      const up = Math.max(0, y - 1) * width;
      const row = y * width;
      const down = Math.min(height - 1, y + 1) * width;
      for (let x = 0; x < width; x += 1) {
        const left = Math.max(0, x - 1);
        const right = Math.min(width - 1, x + 1);
        const gx =
          luminance[up + right]! +
          2 * luminance[row + right]! +
          luminance[down + right]! -
          luminance[up + left]! -
          2 * luminance[row + left]! -
          luminance[down + left]!;
        const gy =
          luminance[down + left]! +
          2 * luminance[down + x]! +
          luminance[down + right]! -
          luminance[up + left]! -
          2 * luminance[up + x]! -
          luminance[up + right]!;
        const ink = gx * gx + gy * gy > COMIC_EDGE_THRESHOLD ** 2;
        const i = (row + x) * channels;
        for (let c = 0; c < channels; c += 1) out[i + c] = ink ? 0 : level[data[i + c]!]!;
      }
    }
    return { data: out, info };
  },
};

const STYLE_STEPS: Readonly<Record<(typeof STYLES)[number], readonly Step[]>> = {
  // Soft pastel anime: details smoothed away, colours lifted towards a warm white.
  healing: [
    (image, size) => image.blur(smoothing(size, 200)),
    (image) => image.modulate({ saturation: 1.5, brightness: 1.05 }),
    (image) => image.linear([0.72, 0.68, 0.68], [78, 70, 66]),
  ],
  // Cartoon shapes in relief: smooth, saturated colours, then an emboss that lights every edge
  // from the top left and shades it on the bottom right.
  '3d': [
    (image, size) => image.blur(smoothing(size, 120)),
    (image) => image.modulate({ saturation: 1.6, brightness: 1.1 }),
    (image) => image.convolve(EMBOSS),
  ],
  // Comic panel: flat, saturated colours in a few levels, with black ink outlines.
  comic: [
    (image) => image.median(3),
    (image, size) => image.blur(smoothing(size, 250)),
    (image) => image.modulate({ saturation: 1.8 }),
    comicInk,
  ],
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
