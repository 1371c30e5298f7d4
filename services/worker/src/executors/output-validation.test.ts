import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import type { OutputRules } from '@atelier/job-types';
import { OutputDecoder } from './output-decoder.js';
import { validateImageOutput as validateWith, type AskedSize } from './output-validation.js';

const decoder = new OutputDecoder({ idleMs: 15_000 });
afterAll(() => decoder.stop());
const validateImageOutput = (bytes: Buffer, outputRules: OutputRules, asked: AskedSize) => validateWith(bytes, outputRules, asked, decoder);

const rules: OutputRules = {
  kind: 'image',
  allowedTypes: ['image/png', 'image/webp'],
  sizeTolerance: 2,
  notBlank: true,
  validationRetries: 2,
};

/** A picture: a flat background with a circle on it (so it is not blank). */
async function picture(width: number, height: number, format: 'png' | 'jpeg' | 'gif' = 'png'): Promise<Buffer> {
  const circle = `<svg width="${width}" height="${height}"><circle cx="${width / 2}" cy="${height / 2}" r="${Math.min(width, height) / 3}" fill="orange"/></svg>`;
  return sharp({ create: { width, height, channels: 3, background: { r: 30, g: 144, b: 255 } } })
    .composite([{ input: Buffer.from(circle) }])
    .toFormat(format)
    .toBuffer();
}

describe('output validation - an image output against its type rules', () => {
  it('accepts a picture of the asked size, with its type and size read from the bytes', async () => {
    expect(await validateImageOutput(await picture(320, 240), rules, { width: 320, height: 240 })).toEqual({
      accepted: true,
      contentType: 'image/png',
      width: 320,
      height: 240,
    });
  });

  it('refuses bytes that are no image, and an image cut short, as undecodable', async () => {
    const text = await validateImageOutput(Buffer.from('these bytes are text, not an image'), rules, {});
    expect(text).toMatchObject({ accepted: false, rejection: 'undecodable' });
    const whole = await picture(320, 240);
    const truncated = await validateImageOutput(whole.subarray(0, Math.floor(whole.length / 2)), rules, {});
    expect(truncated).toMatchObject({ accepted: false, rejection: 'undecodable' });
  });

  it('refuses a type the rules do not allow, naming it', async () => {
    const verdict = await validateImageOutput(await picture(320, 240, 'jpeg'), rules, {});
    expect(verdict).toEqual({ accepted: false, rejection: 'type', reason: 'the output is image/jpeg; allowed: image/png, image/webp' });
    expect(await validateImageOutput(await picture(320, 240, 'gif'), rules, {})).toMatchObject({ rejection: 'type' });
  });

  it('keeps each asked side within the tolerance factor, at both ends', async () => {
    const asked = { width: 400, height: 300 };
    expect(await validateImageOutput(await picture(800, 150), rules, asked)).toMatchObject({ accepted: true });
    expect(await validateImageOutput(await picture(801, 300), rules, asked)).toMatchObject({
      accepted: false,
      rejection: 'size',
      reason: "the output's width is 801 px; 400 px was asked, so it must be 200–800 px",
    });
    expect(await validateImageOutput(await picture(400, 149), rules, asked)).toMatchObject({ rejection: 'size' });
    // Only the side asked for is held to it.
    expect(await validateImageOutput(await picture(400, 2000), rules, { width: 400 })).toMatchObject({ accepted: true });
  });

  it('holds an output nothing was asked of to the platform sides only', async () => {
    expect(await validateImageOutput(await picture(2000, 64), rules, {})).toMatchObject({ accepted: true });
    expect(await validateImageOutput(await picture(2000, 63), rules, {})).toMatchObject({
      rejection: 'size',
      reason: 'the output is 2000x63 px; each side must be 64–8192 px',
    });
  });

  it('refuses one flat colour, transparent or not, unless the rules allow it', async () => {
    const flat = await sharp({ create: { width: 320, height: 240, channels: 3, background: { r: 255, g: 255, b: 255 } } })
      .png()
      .toBuffer();
    const clear = await sharp({ create: { width: 320, height: 240, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } } })
      .png()
      .toBuffer();
    expect(await validateImageOutput(flat, rules, {})).toMatchObject({ accepted: false, rejection: 'blank' });
    expect(await validateImageOutput(clear, rules, {})).toMatchObject({ accepted: false, rejection: 'blank' });
    expect(await validateImageOutput(flat, { ...rules, notBlank: false }, {})).toMatchObject({ accepted: true });
  });
});
