import { readFileSync } from 'node:fs';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mediaV1 } from '@atelier/contracts';
import type { PromiseClient } from '@atelier/grpc';
import { startTestPlatform, type TestPlatform } from '@atelier/testing';
import { MAX_ASSET_BYTES } from './domain/asset-rules.js';
import { mediaTestClient } from './test-support/media-client.js';

const ALICE = 'user-alice';
const RSS_LIMIT_MB = 400;

let platform: TestPlatform;
let client: PromiseClient<mediaV1.MediaServiceClient>;

beforeAll(async () => {
  platform = await startTestPlatform();
  client = await mediaTestClient(platform.media.address, 'gateway');
}, 120_000);

afterAll(async () => {
  client?.close();
  await platform?.stop();
});

/** A real PNG padded with trailing bytes to exactly 20 MiB (it still probes as the same PNG). */
async function largestPng(): Promise<Buffer> {
  const image = await sharp({ create: { width: 256, height: 256, channels: 3, background: { r: 9, g: 99, b: 199 } } })
    .png()
    .toBuffer();
  return Buffer.concat([image, Buffer.alloc(MAX_ASSET_BYTES - image.length, 7)]);
}

async function uploaded(bytes: Buffer): Promise<string> {
  const upload = await client.createUpload({
    ownerUserId: ALICE,
    purpose: mediaV1.AssetPurpose.POST_IMAGE,
    contentType: 'image/png',
    sizeBytes: bytes.length,
  });
  const response = await fetch(upload.uploadUrl, { method: 'PUT', headers: upload.uploadHeaders, body: bytes });
  expect(response.status).toBe(200);
  return upload.asset!.id;
}

/** media's resident memory in MB, from the kernel's view of the real process. */
function residentMb(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(match![1]) / 1024;
}

/** Samples media's RSS every 20 ms while `work` runs; answers the peak. */
async function peakRssDuring(work: () => Promise<unknown>): Promise<number> {
  const pid = platform.media.child.pid!;
  let peak = residentMb(pid);
  const timer = setInterval(() => (peak = Math.max(peak, residentMb(pid))), 20);
  try {
    await work();
  } finally {
    clearInterval(timer);
  }
  return Math.max(peak, residentMb(pid));
}

describe('media - completions cannot exhaust memory (media as a real process)', () => {
  it(`answers 30 concurrent completions of one 20 MiB upload alike, staying under ${RSS_LIMIT_MB} MB`, async () => {
    const bytes = await largestPng();
    const assetId = await uploaded(bytes);
    let answers: mediaV1.CompleteUploadResponse[] = [];
    const peak = await peakRssDuring(async () => {
      answers = await Promise.all(Array.from({ length: 30 }, () => client.completeUpload({ assetId, ownerUserId: ALICE })));
    });
    expect(answers.map((answer) => answer.asset!.status)).toEqual(Array(30).fill(mediaV1.AssetStatus.READY));
    expect(new Set(answers.map((answer) => JSON.stringify(answer.asset))).size).toBe(1);
    expect(answers[0]!.asset!.sizeBytes).toBe(MAX_ASSET_BYTES);
    expect(peak, `media's peak RSS was ${peak.toFixed(0)} MB`).toBeLessThan(RSS_LIMIT_MB);
  }, 120_000);

  it(`completes 8 different 20 MiB uploads at once under ${RSS_LIMIT_MB} MB`, async () => {
    const bytes = await largestPng();
    const ids: string[] = [];
    for (let i = 0; i < 8; i += 1) ids.push(await uploaded(bytes));
    let answers: mediaV1.CompleteUploadResponse[] = [];
    const peak = await peakRssDuring(async () => {
      answers = await Promise.all(ids.map((assetId) => client.completeUpload({ assetId, ownerUserId: ALICE })));
    });
    expect(answers.map((answer) => answer.asset!.status)).toEqual(Array(8).fill(mediaV1.AssetStatus.READY));
    expect(peak, `media's peak RSS was ${peak.toFixed(0)} MB`).toBeLessThan(RSS_LIMIT_MB);
  }, 180_000);
});
