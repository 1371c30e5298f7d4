import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { probeImage } from './image-probe.js';

async function image(format: 'png' | 'jpeg' | 'webp', width: number, height: number, options: object = {}): Promise<Buffer> {
  const base = sharp({ create: { width, height, channels: 3, background: { r: 200, g: 120, b: 40 } } });
  return base.toFormat(format, options).toBuffer();
}

describe('image probe - real type and size from the bytes', () => {
  it.each([
    ['png', 640, 480, {}],
    ['jpeg', 1024, 77, {}],
    ['jpeg', 300, 200, { progressive: true }],
    ['webp', 333, 222, {}],
    ['webp', 100, 4000, { lossless: true }],
  ] as const)('reads a %s of %ix%i', async (format, width, height, options) => {
    expect(probeImage(await image(format, width, height, options))).toEqual({ contentType: `image/${format}`, width, height });
  });

  it('reads an extended WebP (with alpha) and a JPEG with EXIF before its frame', async () => {
    const alpha = await sharp({ create: { width: 90, height: 70, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0.5 } } })
      .webp()
      .toBuffer();
    expect(probeImage(alpha)).toEqual({ contentType: 'image/webp', width: 90, height: 70 });
    const withExif = await sharp(await image('jpeg', 120, 80))
      .withMetadata({ exif: { IFD0: { ImageDescription: 'x'.repeat(5000) } } })
      .jpeg()
      .toBuffer();
    expect(probeImage(withExif)).toEqual({ contentType: 'image/jpeg', width: 120, height: 80 });
  });

  it('refuses text, truncated headers and other formats', async () => {
    expect(probeImage(Buffer.from('hello, I am a text file renamed cat.png'))).toBeUndefined();
    expect(probeImage((await image('png', 64, 64)).subarray(0, 20))).toBeUndefined();
    expect(probeImage((await image('jpeg', 64, 64)).subarray(0, 10))).toBeUndefined();
    expect(
      probeImage(
        await sharp({ create: { width: 64, height: 64, channels: 3, background: 'red' } })
          .gif()
          .toBuffer(),
      ),
    ).toBeUndefined();
    expect(probeImage(Buffer.alloc(0))).toBeUndefined();
  });
});
