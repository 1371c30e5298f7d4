import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { SignJWT, exportSPKI, generateKeyPair } from 'jose';
import pg from 'pg';
import { chromium, type Browser, type Page } from 'playwright-core';
import { build } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MobileApi, startTestPlatform, type TestPlatform } from '@atelier/testing';

// The console in a real browser (Debian's Chromium, driven by playwright-core) against the real
// platform: every service as a process, the gateway serving this build at /console. Screenshots
// of each page land in apps/console/screenshots/ (not committed); the overview's is docs/console.png.
const appRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const screenshots = path.join(appRoot, 'screenshots');
const VENDOR_KEY = 'console-e2e-vendor-key';
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

let platform: TestPlatform;
let browser: Browser;
let page: Page;
let buildDir: string;
let base: string;
let admin: string;
let alice: MobileApi;
let db: pg.Client;
/** What the page printed to its console as an error (a CSP violation among them): none is expected. */
const pageErrors: string[] = [];

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`no Chromium at ${CHROMIUM}: apt-get install -y chromium (or set CHROMIUM_PATH)`);
  buildDir = mkdtempSync(path.join(tmpdir(), 'atelier-console-build-'));
  await build({ configFile: path.join(appRoot, 'vite.config.ts'), logLevel: 'warn', build: { outDir: buildDir, emptyOutDir: true } });
  const { publicKey, privateKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519' });
  const sign = (subject: string, roles: string[] = []) =>
    new SignJWT({ roles })
      .setProtectedHeader({ alg: 'EdDSA' })
      .setSubject(subject)
      .setIssuer('console-e2e')
      .setAudience('atelier-app')
      .setIssuedAt()
      .setExpirationTime('10m')
      .sign(privateKey);
  [platform, browser] = await Promise.all([
    startTestPlatform({
      // The first worker holds a stale vendor key: its jobs fail (a credential error is final)
      // until a worker with the right one replaces it.
      workers: 1,
      workerEnv: { PROVIDER_API_KEY: 'stale-key' },
      providerEnv: { PROVIDER_SIM_LATENCY_MS: '200', PROVIDER_SIM_API_KEYS: VENDOR_KEY },
      gateway: {
        JWT_PUBLIC_KEY: await exportSPKI(publicKey),
        JWT_ISSUER: 'console-e2e',
        JWT_AUDIENCE: 'atelier-app',
        CONSOLE_DIR: buildDir,
      },
    }),
    chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox'] }),
  ]);
  base = platform.gatewayUrl!;
  admin = await sign('ops', ['admin']);
  alice = new MobileApi(base, await sign(`alice-${process.pid}`));
  db = new pg.Client({ connectionString: platform.database.url });
  await db.connect();
  mkdirSync(screenshots, { recursive: true });
  page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  page.on('console', (message) => {
    if (message.type() === 'error') pageErrors.push(message.text());
  });
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await db?.end();
  await platform?.stop();
  if (buildDir) rmSync(buildDir, { recursive: true, force: true });
});

const open = async (hash: string) => {
  await page.goto(`${base}/console/${hash}`);
};
const shoot = (name: string) => page.screenshot({ path: path.join(screenshots, `${name}.png`), fullPage: true });

async function signIn(target: Page, token: string) {
  await target.goto(`${base}/console/`);
  await target.getByLabel('admin token').fill(token);
  await target.getByRole('button', { name: 'Sign in' }).click();
}

describe('console in a browser', () => {
  it('loads without a token and signs in with an admin token pasted on its page', async () => {
    await page.goto(`${base}/console/`);
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    await shoot('sign-in');
    await signIn(page, admin);
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
  });

  it('shows a failed job, its timeline, and a retry that succeeds', async () => {
    const asset = await alice.uploadPhoto();
    const created = await alice.createJob(await alice.stylizeBody(asset), `console-${process.pid}`);
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const failed = await alice.waitTerminal(created.body.job.id);
    expect(failed.status).toBe('failed');

    await open('#/jobs');
    await page.getByLabel('status').selectOption('failed');
    const row = page.locator(`tr[data-job="${failed.id}"]`);
    await row.waitFor();
    await shoot('jobs');
    await row.getByRole('link').click();
    await page.locator('.timeline li').nth(1).waitFor();
    expect(await page.locator('.timeline li').count()).toBeGreaterThanOrEqual(3);
    await expect.poll(() => page.locator('.timeline').textContent()).toContain('running → failed');
    expect(await page.locator('.timeline').textContent()).toMatch(/credential/i);
    await shoot('job-failed');

    // The vendor key is fixed: a worker with the right one replaces the stale one.
    await platform.stopWorkers();
    await platform.startWorker({ PROVIDER_API_KEY: VENDOR_KEY });
    await page.getByRole('button', { name: 'Retry' }).click();
    await page.waitForURL((url) => url.hash.startsWith('#/jobs/') && !url.hash.endsWith(failed.id));
    const retried = new URL(page.url()).hash.slice('#/jobs/'.length);
    const ended = await alice.waitTerminal(retried, 30_000);
    const story = async () => JSON.stringify((await alice.call('GET', `/admin-api/jobs/${retried}`, { token: admin })).body);
    expect(ended.status, await story()).toBe('succeeded');
    await page.locator('h1 .badge-succeeded').waitFor({ timeout: 10_000 });
    expect(await page.locator('.facts').textContent()).toContain(failed.id);
    await shoot('job-retried');
  }, 60_000);

  it('replays a dead letter and shows the audit row', async () => {
    const dead = await db.query<{ id: string }>(
      `INSERT INTO jobs.outbox (aggregate_id, event_type, subject, dedupe_key, payload, status, attempt_count, last_error)
       VALUES ($1, 'job.console_replay', 'atelier.console.nowhere', $2, '{}', 'dead', 5, 'no stream') RETURNING id`,
      ['019a0000-0000-7000-8000-00000000c0de', `console-replay-${process.pid}`],
    );
    const id = String(dead.rows[0]!.id);
    await open('#/dead-letters');
    const row = page.locator(`tr[data-outbox="${id}"]`);
    await row.waitFor();
    await shoot('dead-letters');
    await row.getByRole('button', { name: 'Replay' }).click();
    const audit = page.locator(`tr[data-replay="${id}"]`);
    await audit.waitFor();
    expect(await audit.textContent()).toContain('replayed');
    expect(await audit.textContent()).toContain('ops');
    await shoot('dead-letters-replayed');
  });

  it('disables a style, which leaves the mobile catalog, and enables it again', async () => {
    const styles = async () =>
      (await alice.call<{ styles: { code: string }[] }>('GET', '/api/v1/creation/catalog?mediaKind=image')).body.styles.map((s) => s.code);
    const code = (await styles())[0]!;
    await open('#/catalog');
    const row = page.locator(`tr[data-style="${code}"]`);
    await row.getByRole('button', { name: 'Disable' }).click();
    await row.locator('.badge-disabled').waitFor();
    await shoot('catalog');
    await expect.poll(styles, { timeout: 10_000 }).not.toContain(code);
    await row.getByRole('button', { name: 'Enable' }).click();
    await row.locator('.badge-enabled').waitFor();
    await expect.poll(styles, { timeout: 10_000 }).toContain(code);
  });

  it('lists a worker with the job it runs, and draws the overview', async () => {
    const asset = await alice.uploadPhoto();
    const slow = await alice.createJob(await alice.stylizeBody(asset, 'slow cat #sim-latency=8000'), `console-slow-${process.pid}`);
    expect(slow.status).toBe(201);
    await open('#/workers');
    await page.locator(`.card a[href="#/jobs/${slow.body.job.id}"]`).waitFor({ timeout: 15_000 });
    await shoot('workers');
    await open('#/');
    await page.locator('[data-chart="Jobs ended per bucket"] canvas').waitFor();
    await page.locator('[data-chart="Queued at the end of each bucket"] canvas').waitFor();
    await page.locator('[data-chart="Queue wait of the claims per bucket (s)"] canvas').waitFor();
    await shoot('overview');
    copyFileSync(path.join(screenshots, 'overview.png'), path.join(appRoot, '../../docs/console.png'));
    expect(pageErrors).toEqual([]);
  });

  it('refuses a token without the admin role', async () => {
    const other = await browser.newPage();
    await signIn(other, alice.token);
    const alert = other.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toContain('403');
    await other.screenshot({ path: path.join(screenshots, 'refused.png') });
    await other.close();
  });
});
