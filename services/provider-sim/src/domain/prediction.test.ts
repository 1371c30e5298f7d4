import { describe, expect, it } from 'vitest';
import { markCanceled, markFailed, markProcessing, markSucceeded, newPrediction, progressOf } from './prediction.js';

const at = (ms: number) => new Date(Date.UTC(2026, 10, 30, 12, 0, 0, ms));
const output = { bytes: Buffer.from('png'), contentType: 'image/png' };

function prediction(latencyMs = 1000) {
  return newPrediction({ id: 'pred_1', model: 'm', version: null, idempotencyKey: null, latencyMs, now: at(0) });
}

describe('prediction - progress', () => {
  it('is 0 while starting, rises linearly while processing and stays at most 99 until done', () => {
    const p = prediction(1000);
    expect(progressOf(p, at(500))).toBe(0);
    markProcessing(p, at(1000));
    expect(progressOf(p, at(1000))).toBe(0);
    expect(progressOf(p, at(1255))).toBe(25);
    expect(progressOf(p, at(1999))).toBe(99);
    expect(progressOf(p, at(60_000))).toBe(99);
    markSucceeded(p, output, false, at(2100));
    expect(progressOf(p, at(2100))).toBe(100);
  });

  it('freezes where it was when the prediction is cancelled or fails', () => {
    const canceled = prediction(1000);
    markProcessing(canceled, at(0));
    markCanceled(canceled, at(400));
    expect(progressOf(canceled, at(5000))).toBe(40);
    const failed = prediction(1000);
    markFailed(failed, { code: 'input_unreachable', message: 'down' }, at(10));
    expect(progressOf(failed, at(5000))).toBe(0);
  });
});

describe('prediction - transitions', () => {
  it('never leaves a terminal status: a late success after a cancel is dropped', () => {
    const p = prediction();
    markProcessing(p, at(0));
    expect(markCanceled(p, at(10))).toBe(true);
    expect(p.abort.signal.aborted).toBe(true);
    expect(markSucceeded(p, output, false, at(20))).toBe(false);
    expect(markFailed(p, { code: 'provider_error', message: 'x' }, at(20))).toBe(false);
    expect(markCanceled(p, at(30))).toBe(false);
    expect(p).toMatchObject({ status: 'canceled', output: null, completedAt: at(10) });
  });

  it('does not start processing once cancelled while starting', () => {
    const p = prediction();
    markCanceled(p, at(5));
    expect(markProcessing(p, at(6))).toBe(false);
    expect(p.startedAt).toBeNull();
  });
});
