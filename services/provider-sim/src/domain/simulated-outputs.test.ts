import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { probeImage } from '@atelier/images';
import { badOutput, isBadOutputKind } from './simulated-outputs.js';

describe('simulated outputs - what the bad output kinds serve', () => {
  it('serves text for invalid_output', async () => {
    const bytes = await badOutput('invalid_output', { width: 320, height: 240 });
    expect(bytes.length).toBeGreaterThan(0);
    expect(probeImage(bytes)).toBeUndefined();
  });

  it('serves a flat image of the real size for blank_output', async () => {
    const bytes = await badOutput('blank_output', { width: 320, height: 240 });
    expect(probeImage(bytes)).toEqual({ contentType: 'image/png', width: 320, height: 240 });
    const { channels } = await sharp(bytes).stats();
    for (const channel of channels) expect(channel.stdev).toBe(0);
  });

  it('serves a real picture of 32x32 px for wrong_size_output, whatever the size', async () => {
    const bytes = await badOutput('wrong_size_output', { width: 320, height: 240 });
    expect(probeImage(bytes)).toEqual({ contentType: 'image/png', width: 32, height: 32 });
    const { channels } = await sharp(bytes).stats();
    expect(channels.some((channel) => channel.stdev > 10)).toBe(true);
  });

  it('names the kinds that succeed with a bad output, and no other', () => {
    expect(['invalid_output', 'blank_output', 'wrong_size_output'].every((kind) => isBadOutputKind(kind as never))).toBe(true);
    expect(isBadOutputKind('flagged')).toBe(false);
    expect(isBadOutputKind(undefined)).toBe(false);
  });
});
