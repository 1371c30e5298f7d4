import sharp from 'sharp';

/** One answer of the mobile API: status, headers and the parsed JSON body. */
export interface ApiAnswer<T = Record<string, unknown>> {
  status: number;
  headers: Headers;
  body: T;
}

export interface ApiJob {
  id: string;
  status: string;
  progress: number;
  outputUrl: string | null;
  outputAssetId: string | null;
  version: number;
  attempts: { count: number; max: number };
  error: { code: string; message: string } | null;
  timings: { attempts: { attempt: number; outcome: string; errorCode: string | null }[] } | null;
}

type Catalog = { models: { id: string; jobType: string }[]; styles: { id: string; code: string }[] };
type Asset = { asset: { id: string; status: string } };

/**
 * A PNG of the given size with a visible shape, so a transform shows and the output is never one
 * flat colour (which the worker refuses as VALIDATION_OUTPUT_BLANK). Another background makes
 * other bytes.
 */
export function testPng(width = 256, height = 256, background = { r: 120, g: 80, b: 200 }): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background } })
    .composite([
      {
        input: Buffer.from(
          `<svg width="${width}" height="${height}"><circle cx="${width / 2}" cy="${height / 2}" r="${width / 4}" fill="yellow"/></svg>`,
        ),
      },
    ])
    .png()
    .toBuffer();
}

/**
 * The mobile API as an app uses it, for end-to-end and fault tests: JSON calls with a bearer
 * token, the two-step upload, a stylize request from the live catalog, polling until a job ends
 * and reading its Server-Sent Events.
 */
export class MobileApi {
  constructor(
    readonly baseUrl: string,
    readonly token: string,
  ) {}

  /** The same API as another user. */
  as(token: string): MobileApi {
    return new MobileApi(this.baseUrl, token);
  }

  async call<T = Record<string, unknown>>(
    method: string,
    route: string,
    options: { token?: string | null; body?: unknown; headers?: Record<string, string>; signal?: AbortSignal } = {},
  ): Promise<ApiAnswer<T>> {
    const token = options.token === undefined ? this.token : options.token;
    const response = await fetch(`${this.baseUrl}${route}`, {
      method,
      headers: {
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
        ...options.headers,
      },
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      signal: options.signal,
    });
    const text = await response.text();
    return { status: response.status, headers: response.headers, body: (text ? JSON.parse(text) : undefined) as T };
  }

  /** Uploads a PNG as an ai_input asset (create, PUT to the presigned URL, complete) and answers its id. */
  async uploadPhoto(options: { complete?: boolean; bytes?: Buffer } = {}): Promise<string> {
    const bytes = options.bytes ?? (await testPng());
    const upload = await this.call<Asset & { upload: { url: string; headers: Record<string, string> } }>('POST', '/api/v1/media/uploads', {
      body: { purpose: 'ai_input', contentType: 'image/png', sizeBytes: bytes.length },
    });
    if (upload.status !== 201) throw new Error(`upload refused: ${upload.status} ${JSON.stringify(upload.body)}`);
    const put = await fetch(upload.body.upload.url, { method: 'PUT', headers: upload.body.upload.headers, body: bytes });
    if (put.status !== 200) throw new Error(`presigned PUT answered ${put.status}`);
    if (options.complete !== false) {
      const completed = await this.call<Asset>('POST', `/api/v1/media/uploads/${upload.body.asset.id}/complete`);
      if (completed.status !== 200) throw new Error(`upload completion answered ${completed.status} ${JSON.stringify(completed.body)}`);
    }
    return upload.body.asset.id;
  }

  /** The body of an image.stylize create with the catalog's first stylize model and first style. */
  async stylizeBody(inputAssetId: string, prompt = 'my cat as pop art'): Promise<Record<string, unknown>> {
    const catalog = await this.call<Catalog>('GET', '/api/v1/creation/catalog?mediaKind=image');
    if (catalog.status !== 200) throw new Error(`catalog answered ${catalog.status}`);
    return {
      jobType: 'image.stylize',
      modelId: catalog.body.models.find((m) => m.jobType === 'image.stylize')!.id,
      styleId: catalog.body.styles[0]!.id,
      inputAssetId,
      prompt,
    };
  }

  /** POST /creation/jobs with an Idempotency-Key. */
  createJob(body: Record<string, unknown>, idempotencyKey: string): Promise<ApiAnswer<{ job: ApiJob }>> {
    return this.call<{ job: ApiJob }>('POST', '/api/v1/creation/jobs', { body, headers: { 'idempotency-key': idempotencyKey } });
  }

  async getJob(jobId: string): Promise<ApiJob> {
    const answer = await this.call<{ job: ApiJob }>('GET', `/api/v1/creation/jobs/${jobId}`);
    if (answer.status !== 200) throw new Error(`GET job ${jobId} answered ${answer.status} ${JSON.stringify(answer.body)}`);
    return answer.body.job;
  }

  /**
   * Polls the job until it is succeeded, failed or cancelled. A 503 (a service still coming back)
   * is waited out as the app does, for at most its Retry-After; any other answer but 200 fails.
   */
  async waitTerminal(jobId: string, timeoutMs = 30_000): Promise<ApiJob> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const answer = await this.call<{ job: ApiJob }>('GET', `/api/v1/creation/jobs/${jobId}`);
      if (answer.status === 503 && Date.now() < deadline) {
        const retryAfterSeconds = Math.min(5, Number(answer.headers.get('retry-after') ?? 1) || 1);
        await new Promise((resolve) => setTimeout(resolve, retryAfterSeconds * 1000));
        continue;
      }
      if (answer.status !== 200) throw new Error(`GET job ${jobId} answered ${answer.status} ${JSON.stringify(answer.body)}`);
      const job = answer.body.job;
      if (['succeeded', 'failed', 'cancelled'].includes(job.status)) return job;
      if (Date.now() > deadline) throw new Error(`job ${jobId} is still ${job.status} after ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  /** Reads a job's Server-Sent Events until the stream ends (after the terminal event). */
  async readEvents(
    jobId: string,
    headers: Record<string, string> = {},
  ): Promise<{ status: number; contentType: string | null; ids: number[]; jobs: ApiJob[]; keepalives: number }> {
    const response = await fetch(`${this.baseUrl}/api/v1/creation/jobs/${jobId}/events`, {
      headers: { authorization: `Bearer ${this.token}`, ...headers },
    });
    const text = await response.text();
    const events = text.split('\n\n').filter((e) => e.includes('event: job'));
    return {
      status: response.status,
      contentType: response.headers.get('content-type'),
      ids: events.map((e) => Number(/^id: (\d+)$/m.exec(e)![1])),
      jobs: events.map((e) => JSON.parse(/^data: (.*)$/m.exec(e)![1]!) as ApiJob),
      keepalives: (text.match(/^: keepalive$/gm) ?? []).length,
    };
  }
}
