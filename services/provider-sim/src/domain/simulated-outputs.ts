import sharp from 'sharp';
import type { SimulationKind } from './simulation-directives.js';

/** What `invalid_output` serves as image/png: bytes no image decoder accepts. */
export const INVALID_OUTPUT_BYTES = Buffer.from('provider-sim invalid_output: these bytes are text, not an image\n');

/** The side of a `wrong_size_output`: below every image side Atelier accepts (64 px), whatever was asked. */
export const WRONG_OUTPUT_SIDE_PX = 32;

/** The kinds that succeed with an output a careful client must refuse. */
export type BadOutputKind = Extract<SimulationKind, 'invalid_output' | 'blank_output' | 'wrong_size_output'>;
const BAD_OUTPUT_KINDS: ReadonlySet<SimulationKind> = new Set<BadOutputKind>(['invalid_output', 'blank_output', 'wrong_size_output']);

export function isBadOutputKind(kind: SimulationKind | undefined): kind is BadOutputKind {
  return kind !== undefined && BAD_OUTPUT_KINDS.has(kind);
}

/**
 * The PNG bytes a bad output kind serves in place of the transform's: text (`invalid_output`),
 * one flat white image of the size the real output has (`blank_output`), or a real picture of
 * 32×32 px (`wrong_size_output`).
 */
export async function badOutput(kind: BadOutputKind, size: { width: number; height: number }): Promise<Buffer> {
  if (kind === 'invalid_output') return INVALID_OUTPUT_BYTES;
  if (kind === 'blank_output') {
    return sharp({ create: { ...size, channels: 3, background: { r: 255, g: 255, b: 255 } } })
      .png()
      .toBuffer();
  }
  const side = WRONG_OUTPUT_SIDE_PX;
  const stripes = `<svg width="${side}" height="${side}"><rect width="${side / 2}" height="${side}" fill="black"/></svg>`;
  return sharp({ create: { width: side, height: side, channels: 3, background: { r: 255, g: 200, b: 0 } } })
    .composite([{ input: Buffer.from(stripes) }])
    .png()
    .toBuffer();
}
