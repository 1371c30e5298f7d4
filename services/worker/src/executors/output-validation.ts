import { imageSizeProblem } from '@atelier/images';
import { BLANK_STDEV, type OutputRejection, type OutputRules } from '@atelier/job-types';
import type { ImageDecoder } from './output-decoder.js';

/** The sides a job asked for (0 or absent: not asked). */
export interface AskedSize {
  width?: number;
  height?: number;
}

export type OutputVerdict =
  { accepted: true; contentType: string; width: number; height: number } | { accepted: false; rejection: OutputRejection; reason: string };

const CONTENT_TYPES: Readonly<Record<string, string>> = { png: 'image/png', jpeg: 'image/jpeg', webp: 'image/webp', gif: 'image/gif' };

/**
 * Checks a vendor's output against its job type's rules, in the order a user would care:
 * it decodes (the whole image, not only its header), its type is allowed, its size is what was
 * asked within the type's tolerance (or within the platform's sides when nothing was asked), and
 * it is not one flat colour. One decode serves every check, in the decoder's process (the worker
 * never loads sharp: OutputDecoder). `reason` is for operators: sizes and types only, never the
 * bytes. A decoder that cannot start throws: a broken worker, not the vendor's output.
 */
export async function validateImageOutput(
  bytes: Buffer,
  rules: OutputRules,
  asked: AskedSize,
  decoder: ImageDecoder,
): Promise<OutputVerdict> {
  const decoded = await decoder.decode(bytes);
  if (!decoded.decoded) return { accepted: false, rejection: 'undecodable', reason: decoded.reason };
  const { facts } = decoded;
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
