import type * as SharpModule from 'sharp';
import { imageSizeProblem } from '@atelier/images';
import { BLANK_STDEV, type OutputRejection, type OutputRules } from '@atelier/job-types';

/** The sides a job asked for (0 or absent: not asked). */
export interface AskedSize {
  width?: number;
  height?: number;
}

export type OutputVerdict =
  { accepted: true; contentType: string; width: number; height: number } | { accepted: false; rejection: OutputRejection; reason: string };

// sharp (libvips) costs ~30 MB resident: loaded at the first output, not by an idle worker.
let sharpModule: Promise<typeof SharpModule> | undefined;
const loadSharp = async () => (await (sharpModule ??= import('sharp'))).default;

const CONTENT_TYPES: Readonly<Record<string, string>> = { png: 'image/png', jpeg: 'image/jpeg', webp: 'image/webp', gif: 'image/gif' };

/**
 * Checks a vendor's output against its job type's rules, in the order a user would care:
 * it decodes (the whole image, not only its header), its type is allowed, its size is what was
 * asked within the type's tolerance (or within the platform's sides when nothing was asked), and
 * it is not one flat colour. One decode serves every check. `reason` is for operators: sizes and
 * types only, never the bytes.
 */
export async function validateImageOutput(bytes: Buffer, rules: OutputRules, asked: AskedSize): Promise<OutputVerdict> {
  let facts: { format: string; width: number; height: number; flat: boolean };
  // Outside the try: a worker without sharp is broken, not the vendor's output.
  const sharp = await loadSharp();
  try {
    const image = sharp(bytes, { failOn: 'error' });
    const [metadata, stats] = await Promise.all([image.metadata(), image.stats()]);
    facts = {
      format: metadata.format ?? 'unknown',
      width: metadata.width ?? 0,
      height: metadata.height ?? 0,
      flat: stats.channels.every((channel) => channel.stdev < BLANK_STDEV),
    };
  } catch (error) {
    return { accepted: false, rejection: 'undecodable', reason: `the output does not decode as an image (${(error as Error).message})` };
  }
  const contentType = CONTENT_TYPES[facts.format] ?? `image/${facts.format}`;
  if (!(rules.allowedTypes as readonly string[]).includes(contentType)) {
    return { accepted: false, rejection: 'type', reason: `the output is ${contentType}; allowed: ${rules.allowedTypes.join(', ')}` };
  }
  const sizeProblem = outputSizeProblem(facts, rules.sizeTolerance, asked);
  if (sizeProblem) return { accepted: false, rejection: 'size', reason: sizeProblem };
  if (rules.notBlank && facts.flat) {
    return {
      accepted: false,
      rejection: 'blank',
      reason: `the output is one flat colour (every channel's deviation below ${BLANK_STDEV})`,
    };
  }
  return { accepted: true, contentType, width: facts.width, height: facts.height };
}

function outputSizeProblem(facts: { width: number; height: number }, tolerance: number, asked: AskedSize): string | undefined {
  const absolute = imageSizeProblem(facts.width, facts.height);
  if (absolute) return `the output is ${absolute}`;
  for (const side of ['width', 'height'] as const) {
    const wanted = asked[side];
    if (!wanted) continue;
    const got = facts[side];
    if (got < wanted / tolerance || got > wanted * tolerance) {
      return `the output's ${side} is ${got} px; ${wanted} px was asked, so it must be ${Math.ceil(wanted / tolerance)}–${Math.floor(wanted * tolerance)} px`;
    }
  }
  return undefined;
}
