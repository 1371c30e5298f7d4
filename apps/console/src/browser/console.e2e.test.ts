import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { SignJWT, exportSPKI, generateKeyPair } from 'jose';
import pg from 'pg';
import { chromium, type Browser, type Page } from 'playwright-core';
import { build } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MobileApi, addUpscaleModel, startTestPlatform, type TestPlatform } from '@atelier/testing';

// The console in a real browser (Debian's Chromium, driven by playwright-core) against the real
// platform: every service as a process, the gateway serving this build at /console. Screenshots
// of each page land in apps/console/screenshots/ (not committed). The README's picture,
// docs/console.png, is refreshed from the overview's only when asked (UPDATE_DOCS_SCREENSHOT=1):
// a test run leaves the committed tree as it found it.
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
/** The job the failed-job test leaves failed (its retry is a new job). */
let failedJobId: string;
let alice: MobileApi;
let db: pg.Client;
/** A token of the test's signing key for this subject (a user, or an operator with roles: ['admin']). */
let sign: (subject: string, roles?: string[]) => Promise<string>;
/** What the page printed to its console as an error (a CSP violation among them): none is expected. */
const pageErrors: string[] = [];

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`no Chromium at ${CHROMIUM}: apt-get install -y chromium (or set CHROMIUM_PATH)`);
  buildDir = mkdtempSync(path.join(tmpdir(), 'atelier-console-build-'));
  await build({ configFile: path.join(appRoot, 'vite.config.ts'), logLevel: 'warn', build: { outDir: buildDir, emptyOutDir: true } });
  const { publicKey, privateKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519' });
  sign = (subject: string, roles: string[] = []) =>
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
    failedJobId = failed.id;

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

  it("shows what the vendor was paid — per day, the gates, reconciliation's findings — and a job's calls and cost", async () => {
    // The retried job of the test above succeeded: its prediction is in the usage ledger, billed.
    const jobs = await alice.call<{ items: { id: string; status: string }[] }>(
      'GET',
      `/admin-api/jobs?userId=alice-${process.pid}&status=succeeded`,
      {
        token: admin,
      },
    );
    const paid = jobs.body.items[0]!.id;
    const put = (path: string, body: object) => alice.call('PUT', path, { token: admin, body });
    expect(
      (await put('/admin-api/provider-budgets', { providerCode: 'sim', providerModel: '', dailyLimitMicros: 1_000_000, currency: 'USD' }))
        .status,
    ).toBe(200);
    expect((await put('/admin-api/provider-limits', { providerCode: 'sim', providerModel: '', maxConcurrent: 4 })).status).toBe(200);
    // A finding as a reconciliation run leaves it: a prediction at the vendor that no job made.
    const run = '019ae5c1-2f3a-7000-8000-00000000c0de';
    await db.query(
      `INSERT INTO jobs.reconciliation_runs (id, provider_code, window_start, window_end, status, worker_id, lease_expires_at, finished_at)
       VALUES ($1, 'sim', now() - interval '20 minutes', now() - interval '10 minutes', 'finished', 'console-e2e', now(), now())`,
      [run],
    );
    const finding = await db.query<{ id: string }>(
      `INSERT INTO jobs.reconciliation_findings (provider_code, kind, vendor_id, detail, run_id)
       VALUES ('sim', 'prediction_without_job', 'pred_console_e2e', 'succeeded prediction with Idempotency-Key none', $1) RETURNING id`,
      [run],
    );

    await open('#/spend');
    await page.locator('[data-total="USD"]').waitFor();
    expect(await page.locator('[data-total="USD"]').textContent()).toMatch(/USD 0\.\d{4}/);
    await page.locator('[data-chart="Cost per day, in millionths of the currency"] canvas').waitFor();
    expect(await page.locator('[data-table="top-users"]').textContent()).toContain(`alice-${process.pid}`);
    expect(await page.locator('[data-budget="sim"]').textContent()).toMatch(/% ?sim: USD 0\.\d{4} of USD 1\.00 today/);
    await page.locator('[data-budget="sim"] [role="meter"]').waitFor();
    const limit = page.locator('tr[data-limit="sim"]');
    await limit.waitFor();
    expect(await limit.locator('td').nth(1).textContent()).toMatch(/^\d+ \/ 4$/);
    const row = page.locator(`tr[data-finding="${finding.rows[0]!.id}"]`);
    await row.waitFor();
    expect(await row.textContent()).toContain('Prediction without a job');
    expect(await page.locator('[data-coverage]').textContent()).toContain('sim: reconciled up to');
    await shoot('spend');
    await row.getByRole('button', { name: 'Acknowledge' }).click();
    await expect.poll(() => row.textContent()).toContain('by ops');

    await open(`#/jobs/${paid}`);
    const calls = page.locator('[data-table="vendor-calls"]');
    await calls.waitFor();
    const kinds = await calls.locator('tbody tr td:nth-child(3)').allTextContents();
    expect(kinds[0]).toBe('submit');
    expect(kinds).toContain('poll');
    expect(kinds).toContain('output_fetch');
    expect(await page.locator('[data-job-cost]').textContent()).toMatch(/Cost USD 0\.\d{4}, 1 billed prediction/);
    await shoot('job-calls');
  });

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
    await page.getByText('Monthly allowance used up, this month').waitFor();
    await shoot('overview');
    if (process.env.UPDATE_DOCS_SCREENSHOT === '1')
      copyFileSync(path.join(screenshots, 'overview.png'), path.join(appRoot, '../../docs/console.png'));
    expect(pageErrors).toEqual([]);
  });

  it('cancels a running job from its page, recorded as the operator', async () => {
    const asset = await alice.uploadPhoto();
    // The vendor holds this prediction for a minute: the job is running while the operator looks.
    const held = await alice.createJob(await alice.stylizeBody(asset, 'held cat #sim-latency=60000'), `console-held-${process.pid}`);
    expect(held.status, JSON.stringify(held.body)).toBe(201);
    const jobId = held.body.job.id;
    await open(`#/jobs/${jobId}`);
    await page.locator('h1 .badge-running').waitFor({ timeout: 15_000 });
    await page.getByRole('button', { name: 'Cancel' }).click();
    await page.locator('h1 .badge-cancelled').waitFor({ timeout: 10_000 });
    await expect.poll(() => page.locator('.timeline').textContent()).toContain('running → cancelled');
    expect(await page.locator('.timeline li').last().textContent()).toContain('by operator:ops');
    expect(await page.getByRole('button', { name: 'Cancel' }).isDisabled()).toBe(true);
    await shoot('job-cancelled');

    const story = await alice.call<{ job: { status: string }; events: { to: string; actor: string }[] }>(
      'GET',
      `/admin-api/jobs/${jobId}`,
      { token: admin },
    );
    expect(story.status).toBe(200);
    expect(story.body.job.status).toBe('cancelled');
    expect(story.body.events.at(-1)).toMatchObject({ to: 'cancelled', actor: 'operator:ops' });
    expect((await alice.getJob(jobId)).status).toBe('cancelled');
  });

  it("edits a model's default parameters, which the mobile catalog then offers, and restores them", async () => {
    const code = 'patbond-v1';
    const mobileDefaults = async () =>
      (
        await alice.call<{ models: { code: string; defaultParameters: Record<string, unknown> }[] }>(
          'GET',
          '/api/v1/creation/catalog?mediaKind=image',
        )
      ).body.models.find((m) => m.code === code)?.defaultParameters;
    const adminDefaults = async () =>
      (
        await alice.call<{ models: { code: string; defaultParameters: Record<string, unknown> }[] }>('GET', '/admin-api/catalog', {
          token: admin,
        })
      ).body.models.find((m) => m.code === code)?.defaultParameters;
    expect(await mobileDefaults()).toEqual({ strength: 0.8 });

    const row = page.locator(`tr[data-model="${code}"]`);
    const edit = async (text: string) => {
      await row.getByRole('button', { name: 'Edit' }).click();
      await row.getByLabel(`default parameters of ${code}`).fill(text);
      await row.getByRole('button', { name: 'Save' }).click();
    };
    await open('#/catalog');
    // What is not a JSON object is refused on the page and nothing is sent.
    await edit('[4]');
    await row.getByText('Default parameters must be a JSON object').waitFor();
    await row.getByRole('button', { name: 'Cancel' }).click();

    await edit('{\n  "strength": 0.5\n}');
    await row.locator('code', { hasText: '{"strength":0.5}' }).waitFor();
    await page.reload();
    await row.locator('code', { hasText: '{"strength":0.5}' }).waitFor();
    await shoot('catalog-edited');
    expect(await adminDefaults()).toEqual({ strength: 0.5 });
    await expect.poll(mobileDefaults, { timeout: 10_000 }).toEqual({ strength: 0.5 });

    await edit('{"strength": 0.8}');
    await row.locator('code', { hasText: '{"strength":0.8}' }).waitFor();
    await expect.poll(mobileDefaults, { timeout: 10_000 }).toEqual({ strength: 0.8 });
  });

  it("lists the operators' actions in the audit: the model edits with before and after, the retry, filtered by action", async () => {
    await open('#/audit');
    const edits = page.locator('tr[data-audit="catalog.model.upsert"]');
    await edits.first().waitFor();
    // Newest first: the edit back to 0.8, then the edit to 0.5, each naming the operator, role and route.
    await expect
      .poll(async () => (await edits.allTextContents()).slice(0, 2))
      .toEqual([
        expect.stringMatching(
          /ops · admin.*PUT \/admin-api\/catalog\/models\/:code.*model:patbond-v1.*defaultParameters: \{"strength":0\.5\} → \{"strength":0\.8\}/,
        ),
        expect.stringMatching(/model:patbond-v1.*defaultParameters: \{"strength":0\.8\} → \{"strength":0\.5\}/),
      ]);
    await shoot('audit');
    await page.getByLabel('action').fill('job.retry');
    await page.getByLabel('action').blur();
    const retries = page.locator('tr[data-audit]');
    await expect
      .poll(async () => new Set(await retries.evaluateAll((rows) => rows.map((row) => row.getAttribute('data-audit')))))
      .toEqual(new Set(['job.retry']));
    expect(await retries.first().textContent()).toContain(`job:${failedJobId}`);
  });

  it('filters jobs by type, user and creation time, a cursor page at a time', async () => {
    const bob = alice.as(await sign(`bob-${process.pid}`));
    const upscaler = await addUpscaleModel(alice, admin);
    const upscale = async (api: MobileApi, asset: string, key: string) => {
      const created = await api.createJob(
        { jobType: 'image.upscale', modelId: upscaler, inputAssetId: asset, parameters: { scale: 2 } },
        key,
      );
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      return created.body.job.id;
    };
    const aliceUpscale = await upscale(alice, await alice.uploadPhoto(), `console-up-alice-${process.pid}`);
    // Every job of bob's is created after `since`, a whole second (what the time filter shows).
    const since = Math.ceil((Date.now() + 1) / 1000) * 1000;
    await expect.poll(() => Date.now() >= since, { interval: 50 }).toBe(true);
    const bobAsset = await bob.uploadPhoto();
    const bobJobs: string[] = [];
    // One more than a page (25) of stylize jobs, and one upscale.
    for (let i = 0; i < 25; i += 1) {
      const created = await bob.createJob(await bob.stylizeBody(bobAsset), `console-bob-${process.pid}-${i}`);
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      bobJobs.push(created.body.job.id);
    }
    const bobUpscale = await upscale(bob, bobAsset, `console-up-bob-${process.pid}`);
    bobJobs.push(bobUpscale);

    const rows = page.locator('tbody tr[data-job]');
    const shown = () => rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-job')!).sort());
    const column = (index: number) => rows.evaluateAll((trs, i) => [...new Set(trs.map((tr) => tr.children[i]!.textContent))], index);
    const type = page.getByLabel('job type');
    const user = page.getByLabel('user', { exact: true });
    // A shot once the page's fetch is over (no spinner), of rows that stay put (no live refresh).
    const shootJobs = async (name: string) => {
      await page.getByLabel('refreshing').waitFor({ state: 'detached' });
      await shoot(name);
    };
    await open('#/jobs');
    await page.getByLabel('live refresh').uncheck();

    await type.fill('image.upscale');
    await type.blur();
    await expect.poll(shown).toEqual([aliceUpscale, bobUpscale].sort());
    expect(await column(1)).toEqual(['image.upscale']);
    await shootJobs('jobs-by-type');
    await type.fill('');
    await type.blur();

    await user.fill(`bob-${process.pid}`);
    await user.blur();
    await expect.poll(async () => (await shown()).length).toBe(25);
    const firstPage = await shown();
    expect(await column(3)).toEqual([`bob-${process.pid}`]);
    await shootJobs('jobs-by-user');
    await page.getByRole('button', { name: 'Older →' }).click();
    await expect.poll(shown).not.toEqual(firstPage);
    const secondPage = await shown();
    expect(secondPage).toHaveLength(1);
    expect([...firstPage, ...secondPage].sort()).toEqual([...bobJobs].sort());
    expect(await page.getByRole('button', { name: 'Older →' }).isDisabled()).toBe(true);
    await shootJobs('jobs-by-user-older');
    await page.getByRole('button', { name: '← Newer' }).click();
    await expect.poll(shown).toEqual(firstPage);
    await user.fill(`alice-${process.pid}`);
    await user.blur();
    await expect.poll(async () => (await shown()).includes(aliceUpscale)).toBe(true);
    expect((await shown()).filter((id) => bobJobs.includes(id))).toEqual([]);
    expect(await column(3)).toEqual([`alice-${process.pid}`]);
    await user.fill('');
    await user.blur();

    // The browser's local time of `since`, as the datetime-local inputs take it.
    const local = await page.evaluate((at) => {
      const d = new Date(at);
      const two = (n: number) => String(n).padStart(2, '0');
      return `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())}T${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}`;
    }, since);
    await page.getByLabel('created before').fill(local);
    await expect.poll(async () => (await shown()).includes(aliceUpscale)).toBe(true);
    const before = await shown();
    expect(before.filter((id) => bobJobs.includes(id))).toEqual([]);
    expect(await column(3)).toEqual([`alice-${process.pid}`]);
    await shootJobs('jobs-before');
    await page.getByLabel('created before').fill('');
    // Bob's jobs are the newest: the page after `since` must end with them, alice's left out.
    await page.getByLabel('created after').fill(local);
    await expect.poll(async () => (await shown()).length).toBe(25);
    const afterFirst = await shown();
    await shootJobs('jobs-after');
    await page.getByRole('button', { name: 'Older →' }).click();
    await expect.poll(shown).not.toEqual(afterFirst);
    expect([...afterFirst, ...(await shown())].sort()).toEqual([...bobJobs].sort());
  }, 60_000);

  it('shows each role what it may do: a viewer reads, an operator also cancels and retries, super_admin also edits and sees internal messages', async () => {
    const superAdmin = await sign('ops-root', ['super_admin']);
    const internal = (
      await alice.call<{ job: { internalErrorMessage: string | null; error: { message: string } | null } }>(
        'GET',
        `/admin-api/jobs/${failedJobId}`,
        { token: superAdmin },
      )
    ).body.job;
    expect(internal.internalErrorMessage).toBeTruthy();
    for (const [role, may] of [
      ['viewer', { jobActions: false, catalogEdits: false }],
      ['operator', { jobActions: true, catalogEdits: false }],
      ['super_admin', { jobActions: true, catalogEdits: true }],
    ] as const) {
      const tab = await browser.newPage({ viewport: { width: 1400, height: 900 } });
      await signIn(tab, role === 'super_admin' ? superAdmin : await sign(`ops-${role}`, [role]));
      await tab.locator(`.whoami[data-role="${role}"]`).waitFor();
      await tab.goto(`${base}/console/#/jobs/${failedJobId}`);
      await tab.getByRole('heading', { name: /^Job / }).waitFor();
      expect(await tab.getByRole('button', { name: 'Retry' }).count(), `${role}: Retry`).toBe(may.jobActions ? 1 : 0);
      expect(await tab.getByRole('button', { name: 'Cancel' }).count(), `${role}: Cancel`).toBe(may.jobActions ? 1 : 0);
      const facts = await tab.locator('.facts').textContent();
      if (role === 'super_admin') expect(facts).toContain(internal.internalErrorMessage);
      else if (internal.internalErrorMessage !== internal.error?.message) expect(facts).not.toContain(internal.internalErrorMessage);
      await tab.screenshot({ path: path.join(screenshots, `role-${role}-job.png`), fullPage: true });
      await tab.goto(`${base}/console/#/catalog`);
      await tab.getByRole('heading', { name: 'Models' }).waitFor();
      expect((await tab.getByRole('button', { name: 'Edit' }).count()) > 0, `${role}: Edit`).toBe(may.catalogEdits);
      expect((await tab.getByRole('button', { name: /^(Disable|Enable)$/ }).count()) > 0, `${role}: Disable`).toBe(may.catalogEdits);
      // The audit is an admin's page: the navigation offers it from admin on.
      expect(await tab.getByRole('link', { name: 'Audit' }).count(), `${role}: Audit`).toBe(may.catalogEdits ? 1 : 0);
      await tab.close();
    }
  });

  it('refuses a token without an operator role', async () => {
    const other = await browser.newPage();
    await signIn(other, alice.token);
    const alert = other.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toContain('403');
    await other.screenshot({ path: path.join(screenshots, 'refused.png') });
    await other.close();
  });
});
