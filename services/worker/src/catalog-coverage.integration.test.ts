import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalogChangesSubject, publishCatalogChange } from '@atelier/nats';
import { waitUntil } from '@atelier/testing';
import { startPlatform, type Platform } from './test-support/platform-harness.js';

let p: Platform;
let readyz: string;

beforeAll(async () => {
  p = await startPlatform();
  const worker = await p.startWorker();
  readyz = `http://${worker.address}/readyz`;
}, 120_000);

afterAll(async () => {
  await p?.stop();
});

interface Readiness {
  status: string;
  catalog?: { checked: boolean; unrunnable: { code: string; providerCode: string; problem: string }[] };
}

async function readiness(): Promise<{ code: number; body: Readiness }> {
  const response = await fetch(readyz);
  return { code: response.status, body: (await response.json()) as Readiness };
}

/** Tells the worker the catalog changed, as catalog does after a committed write. */
function announce(id: string): void {
  publishCatalogChange(p.nats, catalogChangesSubject(p.processes.natsPrefix), { kind: 'model', id });
}

describe('worker - it can run every enabled catalog model', () => {
  it('is ready with the seeded catalog, having checked it', async () => {
    await waitUntil(async () => (await readiness()).body.catalog?.checked === true, { timeoutMs: 10_000 });
    expect(await readiness()).toEqual({ code: 200, body: { status: 'ok', catalog: { checked: true, unrunnable: [] } } });
  });

  it('is not ready, naming the model, while an enabled model needs a provider it has no client for', async () => {
    // A catalog of another build (mid-deploy): this one's catalog would refuse the entry at write.
    const id = '019a0000-0000-7000-8000-0000000ac0e1';
    await p.db.query(
      `INSERT INTO catalog.models (id, code, display_name, provider_code, provider_model, model_version, media_kind, job_type, sort_order)
       VALUES ($1, 'acme-stylizer', 'Acme Stylizer', 'acme', 'acme-1', '1', 'image', 'image.stylize', 500)`,
      [id],
    );
    announce(id);
    await waitUntil(async () => (await readiness()).code === 503, { timeoutMs: 10_000 });
    expect((await readiness()).body).toEqual({
      status: 'not ready',
      catalog: {
        checked: true,
        unrunnable: [
          expect.objectContaining({ code: 'acme-stylizer', providerCode: 'acme', problem: 'no provider client for provider code acme' }),
        ],
      },
    });

    await p.db.query(`UPDATE catalog.models SET enabled = false WHERE id = $1`, [id]);
    announce(id);
    await waitUntil(async () => (await readiness()).code === 200, { timeoutMs: 10_000 });
  });
});
