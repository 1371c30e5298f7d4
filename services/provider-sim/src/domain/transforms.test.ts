import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { probeImage } from '@atelier/images';
import { meanDifference, patternPng } from '../test-support/test-images.js';
import { fitWithin, STYLES, transformImage } from './transforms.js';

// Mean difference per channel value (of 255) above which two pictures look clearly different.
const MIN_VISIBLE_DIFFERENCE = 10;

describe('transforms - styles', () => {
  it('renders every style (and the negate fallback) as a PNG of the input size, each visibly different', async () => {
    const input = await patternPng();
    const outputs = await Promise.all(
      [...STYLES, 'no-such-style', undefined].map((style) => transformImage(input, { model: 'sim-stylize', style })),
    );
    for (const output of outputs) {
      expect(probeImage(output)).toEqual({ contentType: 'image/png', width: 160, height: 120 });
      expect(await meanDifference(output, input)).toBeGreaterThan(MIN_VISIBLE_DIFFERENCE);
    }
    for (let i = 0; i < STYLES.length; i += 1) {
      for (let j = i + 1; j < outputs.length - 1; j += 1) {
        expect(await meanDifference(outputs[i]!, outputs[j]!), `${STYLES[i]} vs output ${j}`).toBeGreaterThan(MIN_VISIBLE_DIFFERENCE);
      }
    }
  });

  it('draws comic as black ink outlines over a few flat colours', async () => {
    const { data } = await sharp(await transformImage(await patternPng(), { model: 'm', style: 'comic' }))
      .raw()
      .toBuffer({ resolveWithObject: true });
    const colours = new Set<string>();
    let ink = 0;
    for (let i = 0; i < data.length; i += 3) {
      colours.add(`${data[i]},${data[i + 1]},${data[i + 2]}`);
      if (data[i] === 0 && data[i + 1] === 0 && data[i + 2] === 0) ink += 1;
    }
    // 4 levels per channel at most; the pattern's checks and disc are outlined.
    expect(colours.size).toBeLessThanOrEqual(4 ** 3);
    expect(ink / (data.length / 3)).toBeGreaterThan(0.02);
  });

  it('paints healing in pastels: no dark pixel is left, the picture is lighter than its input', async () => {
    const input = await patternPng();
    const [before, after] = await Promise.all(
      [input, await transformImage(input, { model: 'm', style: 'healing' })].map((png) => sharp(png).raw().toBuffer()),
    );
    expect(after!.reduce((least, value) => Math.min(least, value), 255)).toBeGreaterThanOrEqual(60);
    const mean = (pixels: Buffer) => pixels.reduce((sum, value) => sum + value, 0) / pixels.length;
    expect(mean(after!)).toBeGreaterThan(mean(before!) + 10);
  });

  it('renders at the requested width/height, one side alone keeping the aspect ratio', async () => {
    const input = await patternPng();
    expect(probeImage(await transformImage(input, { model: 'm', style: 'healing', width: 64, height: 256 }))).toMatchObject({
      width: 64,
      height: 256,
    });
    expect(probeImage(await transformImage(input, { model: 'm', style: 'pixel-art', width: 320 }))).toMatchObject({
      width: 320,
      height: 240,
    });
  });
});

describe('transforms - sim-upscale', () => {
  it('enlarges by the scale, 2 by default', async () => {
    const input = await patternPng();
    expect(probeImage(await transformImage(input, { model: 'sim-upscale' }))).toMatchObject({ width: 320, height: 240 });
    expect(probeImage(await transformImage(input, { model: 'sim-upscale', scale: 4 }))).toMatchObject({ width: 640, height: 480 });
  });

  it('caps the longer side at 8192 px and keeps the aspect ratio', () => {
    expect(fitWithin(10_000, 80, 8192)).toEqual({ width: 8192, height: 66 });
    expect(fitWithin(300, 12_000, 8192)).toEqual({ width: 205, height: 8192 });
    expect(fitWithin(400, 300, 8192)).toEqual({ width: 400, height: 300 });
  });
});
