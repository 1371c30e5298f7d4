// Test helpers (used by the tests only): inputs with structure, and a pixel-level comparison.
import sharp from 'sharp';

/** A picture with structure (gradients, checks, a disc), so every style has something to change. */
export async function patternPng(width = 160, height = 120): Promise<Buffer> {
  const pixels = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y += 1) {
    for (let x = 0; x < width; x += 1) {
      const i = (y * width + x) * 3;
      const inDisc = (x - width / 2) ** 2 + (y - height / 2) ** 2 < (Math.min(width, height) / 4) ** 2;
      const check = (Math.floor(x / 16) + Math.floor(y / 16)) % 2 === 0;
      pixels[i] = inDisc ? 230 : Math.round((x / width) * 255);
      pixels[i + 1] = inDisc ? 40 : Math.round((y / height) * 200);
      pixels[i + 2] = check ? 180 : 60;
    }
  }
  return sharp(pixels, { raw: { width, height, channels: 3 } })
    .png()
    .toBuffer();
}

/**
 * Mean absolute difference per channel value (0–255) of two same-sized images, decoded: PNG
 * bytes can differ while the pixels do not, and "visibly different" is about pixels.
 */
export async function meanDifference(a: Buffer, b: Buffer): Promise<number> {
  const decode = (bytes: Buffer) => sharp(bytes).removeAlpha().toColourspace('srgb').raw().toBuffer();
  const [left, right] = await Promise.all([decode(a), decode(b)]);
  if (left.length !== right.length) throw new Error(`images differ in size (${left.length} vs ${right.length} bytes of pixels)`);
  let total = 0;
  for (let i = 0; i < left.length; i += 1) total += Math.abs(left[i]! - right[i]!);
  return total / left.length;
}
