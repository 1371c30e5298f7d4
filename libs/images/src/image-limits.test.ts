import { describe, expect, it } from 'vitest';
import { IMAGE_SIDE_RANGE, MAX_IMAGE_SIDE_PX, MIN_IMAGE_SIDE_PX, imageSizeProblem, isImageSideAllowed } from './index.js';

describe('image limits - sides in pixels', () => {
  it('allows whole sides from the minimum to the maximum, both included', () => {
    expect([MIN_IMAGE_SIDE_PX, MAX_IMAGE_SIDE_PX, 1024].every(isImageSideAllowed)).toBe(true);
    expect([MIN_IMAGE_SIDE_PX - 1, MAX_IMAGE_SIDE_PX + 1, 100.5, Number.NaN].some(isImageSideAllowed)).toBe(false);
  });

  it('says what is wrong with a size, naming the rule', () => {
    expect(imageSizeProblem(640, 480)).toBeUndefined();
    expect(imageSizeProblem(32, 200)).toBe(`32x200 px; each side must be ${IMAGE_SIDE_RANGE}`);
    expect(IMAGE_SIDE_RANGE).toBe('64–8192 px');
  });
});
