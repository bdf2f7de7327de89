import { type ChildProcess, execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { freePort } from '../test/helpers/postgres-server.js';
import { type CookieFixture, dataKey, type Fixture, type Version } from './dataset.js';
import { benchLogKeys } from './log-key.js';
import { type Cores, serverCore, spawnPinned, stopProcess } from './processes.js';

const bin = 'bin/consent-service';
const loopDelayPreload = fileURLToPath(new URL('./loop-delay.mjs', import.meta.url));

const serviceSettings =
  /^(PORT|HOST|PUBLIC_BASE_URL|TRUST_PROXY|LOG_|SHUTDOWN_|SQLITE_|DATABASE_|DATA_ENCRYPTION_|WEBHOOK_|METRICS_|OTEL_|COOKIE_|WORKERS$)/;

/**
 * The service's environment: its defaults, but no rate limits (the API's and the public cookie
 * endpoints', which would otherwise refuse the one loopback address), loopback only, the bench's data
 * key (which the loaders seal with), and webhooks allowed to the bench's receiver on loopback
 * (a development setting; it changes nothing where no endpoint exists). Settings the caller's
 * shell may hold are dropped so that "default config" means the service's defaults.
 */
function serviceEnv(databaseUrl: string, port?: number): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const name of Object.keys(env)) {
    if (serviceSettings.test(name)) delete env[name];
  }
  return {
    ...env,
    DATABASE_URL: databaseUrl,
    RATE_LIMIT_PER_MINUTE: '0',
    COOKIE_RATE_LIMIT_PER_MINUTE: '0',
    DATA_ENCRYPTION_KEY: dataKey.toString('base64'),
    LOG_SIGNING_KEY: benchLogKeys.signerKey,
    LOG_LEVEL: 'info',
    HOST: '127.0.0.1',
    WEBHOOK_ALLOW_HTTP_LOOPBACK: 'true',
    ...(port === undefined ? {} : { PORT: String(port) }),
  };
}

async function cli(databaseUrl: string, ...args: string[]): Promise<Record<string, unknown>> {
  const { stdout } = await promisify(execFile)(process.execPath, [bin, ...args], {
    env: serviceEnv(databaseUrl),
  });
  return JSON.parse(stdout) as Record<string, unknown>;
}

/** Partitions the PostgreSQL store's tables that grow without bound (`store partition`). */
export async function partitionStore(databaseUrl: string, interval: 'year' | 'month') {
  await cli(databaseUrl, 'store', 'partition', '--interval', interval);
}

/** The bench tenant's endpoint for `decision.given` at `url`; answers its signing secret. */
export async function createWebhookEndpoint(databaseUrl: string, url: string): Promise<string> {
  const endpoint = await cli(
    databaseUrl,
    'webhook',
    'create',
    '--tenant',
    'bench',
    '--url',
    url,
    '--events',
    'decision.given',
  );
  return String(endpoint.secret);
}

const shortContent = (tag: string) =>
  `<h1>Privacy policy ${tag}</h1><p>We keep your name and e-mail address to run your account, ` +
  'and nothing else.</p><ul><li>You can ask for a copy of your data at any time.</li>' +
  '<li>You can withdraw this consent whenever you like.</li></ul>';

/** The short text, with numbered paragraphs added until it has at least `bytes` bytes. */
function content(tag: string, bytes: number): string {
  let text = shortContent(tag);
  for (let n = 1; Buffer.byteLength(text) < bytes; n += 1) {
    text +=
      `<h2>Section ${n}</h2><p>We process the data this section names only for the purpose it ` +
      'states, keep it no longer than that purpose needs, and share it with no one it does not ' +
      'name. You may ask us what we hold, have it corrected, or have it erased.</p>';
  }
  return text;
}

const benchProduct = 'bench_app';

/**
 * Tenant, template, two published versions, a key and a product, made the way an operator
 * would; with
 * `cookies`, also a website with its banner published.
 */
export async function createFixture(
  databaseUrl: string,
  { cookies = false, contentBytes = 0 }: { cookies?: boolean; contentBytes?: number } = {},
): Promise<Fixture> {
  const tenant = await cli(
    databaseUrl,
    'tenant',
    'create',
    '--alias',
    'bench',
    '--email',
    'bench@example.com',
    '--password',
    'bench-password',
  );
  const template = await cli(
    databaseUrl,
    'template',
    'create',
    '--tenant',
    'bench',
    '--code',
    'privacy_policy',
    '--name',
    'Privacy policy',
  );
  const publish = async (tag: string): Promise<Version> => {
    const v = await cli(
      databaseUrl,
      'version',
      'publish',
      '--tenant',
      'bench',
      '--template',
      'privacy_policy',
      '--tag',
      tag,
      '--content',
      content(tag, contentBytes),
      '--allow-reconsent',
      'true',
    );
    // The service stores the SHA-256 of the sanitized text, which is what publish answers.
    const sha256 = createHash('sha256').update(String(v.content_html), 'utf8').digest('hex');
    return { id: String(v.consent_version_id), number: Number(v.version), sha256 };
  };
  const older = await publish('1.0');
  const latest = await publish('2.0');
  const key = await cli(databaseUrl, 'apikey', 'create', '--tenant', 'bench', '--name', 'bench');
  await cli(
    databaseUrl,
    'product',
    'create',
    '--tenant',
    'bench',
    '--code',
    benchProduct,
    '--name',
    'Bench app',
  );
  return {
    tenantId: String(tenant.id),
    apiKeyId: String(key.id),
    apiKey: String(key.key),
    templateId: String(template.id),
    templateCode: 'privacy_policy',
    older,
    latest,
    productCode: benchProduct,
    ...(cookies ? { cookies: await createCookieSystem(databaseUrl) } : {}),
  };
}

const cookieOrigin = 'https://www.bench.example';

/** A website of the bench tenant with the four standard categories, published outside review. */
async function createCookieSystem(databaseUrl: string): Promise<CookieFixture> {
  const system = await cli(
    databaseUrl,
    'cookie',
    'system',
    'create',
    '--tenant',
    'bench',
    '--name',
    'Bench website',
    '--origin',
    cookieOrigin,
  );
  const scope = String(system.scope);
  await cli(
    databaseUrl,
    'cookie',
    'create',
    '--tenant',
    'bench',
    '--system',
    scope,
    '--name',
    'Bench banner',
    '--categories',
    'analytics,marketing,functional,personalization',
  );
  const published = await cli(
    databaseUrl,
    'cookie',
    'publish',
    '--tenant',
    'bench',
    '--system',
    scope,
  );
  return {
    scope,
    origin: cookieOrigin,
    configurationId: String(published.configuration_id),
    configurationVersion: Number(published.version),
  };
}

export interface RunningService {
  url: string;
  /** The process started; with several workers, the cluster's primary. */
  pid: number;
  /** Where its event-loop delay is written on SIGUSR2 (one process only). */
  loopDelayFile: string | undefined;
  stop(): Promise<void>;
}

/** Where the service runs: `WORKERS` and the cores they share (the workers group). */
export interface Placement {
  workers: number;
  cores: Cores;
}

/** How a run wants its service started, beyond the defaults. */
export interface ServiceOptions {
  placement?: Placement | undefined;
  /** Settings added to the service's environment. */
  env?: Record<string, string>;
  /** `BENCH_CPU_PROF`: each service process writes a V8 CPU profile there when it exits. */
  cpuProfileDir?: string | undefined;
  /** Without a placement: the core the one process runs on (`BENCH_SERVICE_CORE`). */
  core?: Cores;
}

/**
 * `taskset -c 0 node bin/consent-service serve` (or the placement's `WORKERS` and cores), logging
 * to `logFile`; resolves once every worker listens.
 */
export async function startService(
  databaseUrl: string,
  logFile: string,
  { placement, env: extraEnv = {}, cpuProfileDir, core = serverCore }: ServiceOptions = {},
): Promise<RunningService> {
  const port = await freePort();
  const log = openSync(logFile, 'a');
  const env = { ...serviceEnv(databaseUrl, port), ...extraEnv };
  if (placement) env.WORKERS = String(placement.workers);
  // One process: its event loop's delay is watched too (bench/loop-delay.mjs).
  const loopDelayFile = placement ? undefined : `${logFile}.loop-delay.json`;
  if (loopDelayFile) env.BENCH_LOOP_DELAY_FILE = loopDelayFile;
  const profile = cpuProfileDir ? ['--cpu-prof', `--cpu-prof-dir=${cpuProfileDir}`] : [];
  const preload = loopDelayFile ? ['--import', loopDelayPreload] : [];
  const args = [...profile, ...preload, bin, 'serve'];
  const child = spawnPinned(placement?.cores ?? core, process.execPath, args, {
    env,
    stdio: ['ignore', log, log],
  });
  closeSync(log);
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitHealthy(url, child);
    await waitListening(logFile, placement?.workers ?? 1, child);
  } catch (error) {
    await stopProcess(child);
    throw new Error(`${(error as Error).message}; see ${logFile}`);
  }
  return { url, pid: child.pid ?? 0, loopDelayFile, stop: () => stopProcess(child) };
}

async function waitHealthy(url: string, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the service exited with ${child.exitCode}`);
    try {
      if ((await fetch(`${url}/api/health`)).status === 200) return;
    } catch {
      // Not listening yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('the service did not answer /api/health in 60 s');
}

/**
 * One worker answering /api/health does not mean all of them listen: each says so in the log
 * (Fastify's "Server listening at"), so wait for as many such lines as workers.
 */
async function waitListening(logFile: string, workers: number, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the service exited with ${child.exitCode}`);
    const listening = readFileSync(logFile, 'utf8').split('"msg":"Server listening at').length - 1;
    if (listening >= workers) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`fewer than ${workers} workers listened within 60 s`);
}

/** A response as the ceiling server will repeat it. */
export interface CapturedResponse {
  status: number;
  headers: Record<string, string>;
  bodyBase64: string;
}

/** Headers Node's http server writes itself, per response. */
const perConnectionHeaders = new Set([
  'date',
  'connection',
  'keep-alive',
  'content-length',
  'transfer-encoding',
]);

/** One response of the service to a GET with `sent` headers, to be repeated by a reference. */
export async function capture(
  url: string,
  sent: Record<string, string>,
): Promise<CapturedResponse> {
  const response = await fetch(url, { headers: sent });
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    if (!perConnectionHeaders.has(name)) headers[name] = value;
  });
  const body = Buffer.from(await response.arrayBuffer());
  return { status: response.status, headers, bodyBase64: body.toString('base64') };
}
