/**
 * End-to-end helpers: the command line (in process, or `node bin/consent-service ...` as a child
 * process) and `serve` as a child process, each on its own store (an SQLite file in a fresh temporary directory, or a fresh PostgreSQL
 * database), on loopback only. Every wait is bounded in time, and every child started here is
 * tracked so that `killAllChildren` (called from afterEach/afterAll) can end it even when a test
 * failed half-way.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll } from 'vitest';
import { e2eDataKey } from './data-key.js';
import { freePort } from './postgres-server.js';
import { budget, testPasswordHashCost, testStoreTimeouts } from './time.js';

export { freePort };

import { type CliIo, main } from '../../src/cli/main.js';
import { loadConfig, settingNames } from '../../src/platform/config.js';
import { createDb, type Db } from '../../src/platform/db.js';
import type { TestStore } from './stores.js';

export const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
export const binPath = join(repoRoot, 'bin', 'consent-service');

/** Every child still running, with the `DATABASE_URL` it was started on. */
const children = new Map<ChildProcess, string | undefined>();

/**
 * A fresh, empty store and a new temporary directory (the children's working directory). For
 * SQLite the store is a file (not yet created) in that directory; for PostgreSQL a new database
 * on the run's server.
 */
export interface TempStore {
  /** Which kind of store: `sqlite` or `postgres`. */
  kind: TestStore['name'];
  dir: string;
  /** The store's `DATABASE_URL`: the SQLite file's path, or a `postgres://` URL. */
  databaseUrl: string;
  /** The same as `databaseUrl` (the name from when every store was an SQLite file). */
  dbPath: string;
  /**
   * Kills (SIGKILL) the children still running on this store, deletes the directory (with an
   * SQLite file in it) and drops a PostgreSQL database. The kill signals are sent and the
   * directory is gone before the first `await`, so a caller that does not wait still gets those;
   * the database is dropped when the promise settles.
   */
  remove(): Promise<void>;
}

/** Without an argument: an SQLite store, at once. With a store kind: that kind, asynchronously. */
export function makeTempStore(): TempStore;
export function makeTempStore(store: TestStore): Promise<TempStore>;
export function makeTempStore(store?: TestStore): TempStore | Promise<TempStore> {
  if (store === undefined) return sqliteTempStore();
  if (store.name === 'sqlite') return Promise.resolve(sqliteTempStore());
  return postgresTempStore(store);
}

function sqliteTempStore(): TempStore {
  const dir = mkdtempSync(join(tmpdir(), 'consent-e2e-'));
  const databaseUrl = join(dir, 'consent.db');
  return {
    kind: 'sqlite',
    dir,
    databaseUrl,
    dbPath: databaseUrl,
    remove: () => {
      const killed = killAllChildren({ databaseUrl });
      rmSync(dir, { recursive: true, force: true });
      return killed;
    },
  };
}

async function postgresTempStore(store: TestStore): Promise<TempStore> {
  const { databaseUrl, drop } = await store.create();
  const dir = mkdtempSync(join(tmpdir(), 'consent-e2e-'));
  return {
    kind: 'postgres',
    dir,
    databaseUrl,
    dbPath: databaseUrl,
    remove: async () => {
      const killed = killAllChildren({ databaseUrl });
      rmSync(dir, { recursive: true, force: true });
      await killed;
      await drop();
    },
  };
}

/**
 * Opens the store as the service does (`createDb`), for a test to read what the service wrote
 * with Kysely; the caller destroys it (see `withStore`).
 */
export function openStore(store: { databaseUrl: string }): Db {
  return createDb(loadConfig({ DATABASE_URL: store.databaseUrl, DATABASE_POOL_SIZE: '2' }));
}

/** Runs `read` on the store opened with `openStore`, and closes it whatever happens. */
export async function withStore<T>(
  store: { databaseUrl: string },
  read: (db: Db) => Promise<T>,
): Promise<T> {
  const db = openStore(store);
  try {
    return await read(db);
  } finally {
    await db.destroy();
  }
}

/** The names of the store's tables (the migrations' bookkeeping included). */
export async function tableNames(store: { databaseUrl: string }): Promise<string[]> {
  return withStore(store, async (db) =>
    (await db.introspection.getTables()).map((table) => table.name),
  );
}

/**
 * The environment of a child: the parent's, minus the service's variables, plus the tests' store
 * timeouts (`testStoreTimeouts`), plus `env`.
 */
function childEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const result: NodeJS.ProcessEnv = { ...process.env };
  // Every variable the service reads: none leaks in from the environment the tests run in.
  for (const name of settingNames) delete result[name];
  return { ...result, ...testStoreTimeouts, ...env };
}

function track(child: ChildProcess, env: Record<string, string>): void {
  children.set(child, env.DATABASE_URL);
  child.once('exit', () => children.delete(child));
}

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs one command of the command line in this process, as `bin/consent-service` runs it
 * (`main(argv, io)` of `src/cli/main.ts`), with its own output and settings: the settings are
 * `env` alone (none of the environment the tests run in) over the tests' store timeouts, and paths the service resolves against
 * its working directory (a relative SQLite file, the key files' default `data/` folder) are
 * resolved against `cwd` (by default a fresh temporary directory), as for a process started
 * there. Fails after `timeoutMs` (a budget). The command line as a real process is
 * `runCliProcess`, for the few tests of the process itself (`e2e/cli-process.test.ts`).
 */
export async function runCli(
  args: string[],
  env: Record<string, string>,
  options: { cwd?: string; timeoutMs?: number } = {},
): Promise<CliResult> {
  const timeoutMs = options.timeoutMs ?? budget(20_000);
  const cwd = options.cwd ?? mkdtempSync(join(tmpdir(), 'consent-cli-'));
  let stdout = '';
  let stderr = '';
  const io: CliIo = {
    stdout: (text) => {
      stdout += text;
    },
    stderr: (text) => {
      stderr += text;
    },
    env: inDirectory(env, cwd),
  };
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new Error(`consent-service ${args.join(' ')} still running after ${timeoutMs} ms`, {
            cause: { stdout, stderr },
          }),
        ),
      timeoutMs,
    );
  });
  try {
    const code = await Promise.race([main(args, io), timedOut]);
    return { code, signal: null, stdout, stderr };
  } finally {
    clearTimeout(timer);
    if (options.cwd === undefined) rmSync(cwd, { recursive: true, force: true });
  }
}

/**
 * `env` with the paths a process started in `cwd` would resolve there made absolute: a relative
 * SQLite `DATABASE_URL`, and the key files, whose default for a PostgreSQL store is `data/`
 * under the working directory (src/platform/config.ts).
 */
function inDirectory(env: Record<string, string>, cwd: string): NodeJS.ProcessEnv {
  const databaseUrl = env.DATABASE_URL ?? 'data/consent.db';
  const postgres = /^postgres(ql)?:/.test(databaseUrl);
  const result: Record<string, string> = { ...testStoreTimeouts, ...env };
  if (!postgres && !databaseUrl.startsWith('file:') && databaseUrl !== ':memory:') {
    result.DATABASE_URL = resolve(cwd, databaseUrl);
  }
  const keyDir = postgres || databaseUrl === ':memory:' ? join(cwd, 'data') : undefined;
  for (const [setting, file] of [
    ['LOG_SIGNING_KEY_FILE', 'log-signing.key'],
    ['DATA_ENCRYPTION_KEY_FILE', 'data-encryption.key'],
  ] as const) {
    const given = result[setting];
    if (given !== undefined) result[setting] = resolve(cwd, given);
    else if (keyDir !== undefined) result[setting] = join(keyDir, file);
  }
  return result;
}

/** Runs one command as a real process of `bin/consent-service` (killed after `timeoutMs`). */
export function runCliProcess(
  args: string[],
  env: Record<string, string>,
  options: { cwd?: string; timeoutMs?: number } = {},
): Promise<CliResult> {
  const timeoutMs = options.timeoutMs ?? budget(20_000);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [binPath, ...args], {
      cwd: options.cwd ?? tmpdir(),
      env: childEnv(env),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    track(child, env);
    let stdout = '';
    let stderr = '';
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(
        new Error(`consent-service ${args.join(' ')} still running after ${timeoutMs} ms`, {
          cause: { stdout, stderr },
        }),
      );
    }, timeoutMs);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    // 'close' (not 'exit'): both output streams are drained by then.
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

/** Describes a command's result for assertion messages. */
export function showResult(result: CliResult): string {
  return `exit ${result.code} ${result.signal ?? ''}\nstdout: ${result.stdout}\nstderr: ${result.stderr}`;
}

/**
 * Asserts a management command's success as the contract has it (exit 0, exactly one JSON object
 * on stdout) and returns that object.
 */
export function expectJsonObject(result: CliResult): Record<string, unknown> {
  if (result.code !== 0) throw new Error(`command failed: ${showResult(result)}`);
  const lines = result.stdout.split('\n').filter((line) => line.trim() !== '');
  if (lines.length !== 1) {
    throw new Error(`expected one line of JSON on stdout, got ${lines.length}: ${result.stdout}`);
  }
  const parsed: unknown = JSON.parse(lines[0] ?? '');
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new Error(`expected a JSON object on stdout, got ${result.stdout}`);
  }
  return parsed as Record<string, unknown>;
}

export interface ServerOptions {
  store: TempStore;
  /** Port to listen on; a free one when omitted. */
  port?: number;
  logLevel?: string;
  /** More environment variables (they win over the defaults). */
  env?: Record<string, string>;
  /** How long to wait for `/api/health` to answer 200 (a budget). */
  readyTimeoutMs?: number;
  /** The working directory; the store's directory when omitted. */
  cwd?: string;
  /** The command line to serve with; this checkout's `bin/consent-service` when omitted. */
  bin?: string;
}

/** A running `consent-service serve`. */
export class ServerProcess {
  readonly lines: string[] = [];
  stderr = '';
  exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  readonly #exited: Promise<void>;

  constructor(
    readonly child: ChildProcess,
    readonly port: number,
    readonly env: Record<string, string>,
  ) {
    this.#exited = new Promise((resolve) => {
      child.once('close', (code, signal) => {
        this.exit = { code, signal };
        resolve();
      });
    });
    let partial = '';
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      const parts = (partial + chunk).split('\n');
      partial = parts.pop() ?? '';
      for (const line of parts) if (line.trim() !== '') this.lines.push(line);
    });
    child.stdout?.once('end', () => {
      if (partial.trim() !== '') this.lines.push(partial);
      partial = '';
    });
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      this.stderr += chunk;
    });
  }

  get baseUrl(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  get running(): boolean {
    return this.exit === undefined;
  }

  /** Stdout lines that are not JSON (there should be none: logs are JSON lines). */
  nonJsonLines(): string[] {
    return this.lines.filter((line) => {
      try {
        JSON.parse(line);
        return false;
      } catch {
        return true;
      }
    });
  }

  /** The log records (stdout JSON lines). */
  logs(): Array<Record<string, unknown>> {
    const records: Array<Record<string, unknown>> = [];
    for (const line of this.lines) {
      try {
        records.push(JSON.parse(line) as Record<string, unknown>);
      } catch {
        // not a log record; see nonJsonLines()
      }
    }
    return records;
  }

  signal(signal: NodeJS.Signals): void {
    if (this.running) this.child.kill(signal);
  }

  /** Waits for the process to end; returns how it ended, or undefined after `timeoutMs`. */
  async waitForExit(
    timeoutMs: number,
  ): Promise<{ code: number | null; signal: NodeJS.Signals | null } | undefined> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      this.#exited,
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, timeoutMs);
      }),
    ]);
    clearTimeout(timer);
    return this.exit;
  }

  /** SIGTERM, then SIGKILL if it has not ended after `timeoutMs`. */
  async stop(timeoutMs = budget(10_000)): Promise<void> {
    this.signal('SIGTERM');
    if (await this.waitForExit(timeoutMs)) return;
    this.signal('SIGKILL');
    await this.waitForExit(budget(5_000));
  }

  describe(): string {
    return `serve on port ${this.port} (exit ${JSON.stringify(this.exit)})\nstdout:\n${this.lines.join('\n')}\nstderr:\n${this.stderr}`;
  }
}

/** The environment a server (and the commands that go with it) runs with. */
export function serverEnv(
  store: TempStore,
  port: number,
  logLevel = 'warn',
): Record<string, string> {
  return {
    DATABASE_URL: store.databaseUrl,
    PORT: String(port),
    HOST: '127.0.0.1',
    PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
    LOG_LEVEL: logLevel,
    RATE_LIMIT_PER_MINUTE: '0',
    COOKIE_RATE_LIMIT_PER_MINUTE: '0',
    // One data key for the server and every command run beside it, wherever they run.
    DATA_ENCRYPTION_KEY: e2eDataKey.toString('base64'),
    PASSWORD_HASH_COST: String(testPasswordHashCost),
    ...testStoreTimeouts,
  };
}

/** A request to the server, with the given headers under the init's own, bounded in time. */
export function callServer(
  server: ServerProcess,
  headers: Record<string, string>,
  path: string,
  init: RequestInit = {},
  timeoutMs = budget(10_000),
): Promise<Response> {
  return fetch(`${server.baseUrl}${path}`, {
    ...init,
    headers: { ...headers, ...(init.headers as Record<string, string>) },
    signal: AbortSignal.timeout(timeoutMs),
  });
}

/** Starts `consent-service serve` and waits (bounded) until `GET /api/health` answers 200. */
export async function startServer(options: ServerOptions): Promise<ServerProcess> {
  const port = options.port ?? (await freePort());
  const env = { ...serverEnv(options.store, port, options.logLevel), ...options.env };
  const child = spawn(process.execPath, [options.bin ?? binPath, 'serve'], {
    cwd: options.cwd ?? options.store.dir,
    env: childEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  track(child, env);
  const server = new ServerProcess(child, port, env);
  await waitForHealth(server, options.readyTimeoutMs ?? budget(15_000));
  return server;
}

/**
 * `serve` with `WORKERS=2` (and `env`), once both workers have said they listen: one answering
 * `/api/health` does not mean the other does. Bounded; throws when they do not both say so.
 */
export async function startTwoWorkers(
  store: TempStore,
  port: number,
  env: Record<string, string> = {},
): Promise<ServerProcess> {
  const server = await startServer({
    store,
    port,
    logLevel: 'info',
    env: { WORKERS: '2', ...env },
    readyTimeoutMs: budget(20_000),
  });
  const listening = () =>
    server.logs().filter((record) => String(record.msg).startsWith('Server listening')).length;
  const both = await pollUntil(async () => (listening() === 2 ? true : undefined), {
    timeoutMs: budget(10_000),
  });
  if (!both) throw new Error(`${listening()} of 2 workers said they listen`);
  return server;
}

/** Polls `GET /api/health` every 50 ms until 200, the process ends, or `timeoutMs` passes. */
export async function waitForHealth(server: ServerProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const maxAttempts = Math.ceil(timeoutMs / 50) + 1;
  for (let attempt = 0; attempt < maxAttempts && Date.now() < deadline; attempt += 1) {
    if (!server.running) break;
    try {
      const response = await fetch(`${server.baseUrl}/api/health`, {
        signal: AbortSignal.timeout(budget(1_000)),
      });
      await response.arrayBuffer();
      if (response.status === 200) return;
    } catch {
      // not listening yet
    }
    await delay(50);
  }
  throw new Error(`the server did not become healthy within ${timeoutMs} ms\n${server.describe()}`);
}

/** Polls `check` every `intervalMs` until it returns a value other than undefined. */
export async function pollUntil<T>(
  check: () => Promise<T | undefined>,
  options: { timeoutMs: number; intervalMs?: number },
): Promise<T | undefined> {
  const interval = options.intervalMs ?? 50;
  const deadline = Date.now() + options.timeoutMs;
  const maxAttempts = Math.ceil(options.timeoutMs / interval) + 1;
  for (let attempt = 0; attempt < maxAttempts; attempt += 1) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() >= deadline) break;
    await delay(interval);
  }
  return undefined;
}

export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Kills (SIGKILL) every child still running and waits (bounded) for each to end; with a store,
 * only the children started on that store's `DATABASE_URL` (so that a test on one store does not
 * end the processes of a test running at the same time on another).
 */
export async function killAllChildren(store?: { databaseUrl: string }): Promise<void> {
  const running = [...children]
    .filter(([, databaseUrl]) => store === undefined || databaseUrl === store.databaseUrl)
    .map(([child]) => child);
  await Promise.all(
    running.map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) {
            children.delete(child);
            resolve();
            return;
          }
          const timer = setTimeout(resolve, budget(5_000));
          child.once('exit', () => {
            clearTimeout(timer);
            resolve();
          });
          child.kill('SIGKILL');
        }),
    ),
  );
}

/** A tenant, template, published version and API key, all made through the command line. */
export interface Provisioned {
  alias: string;
  templateCode: string;
  version: Record<string, unknown>;
  versionId: string;
  apiKey: { id: string; name: string; prefix: string; key: string };
}

/**
 * Provisions through the command line, one command after another: they run in this process,
 * where two commands waiting on one SQLite file's lock would block each other (better-sqlite3
 * waits for a lock synchronously). The tenant comes first (it also brings a fresh store's schema
 * up to date).
 */
export async function provision(
  env: Record<string, string>,
  options: { alias?: string; templateCode?: string; content?: string } = {},
): Promise<Provisioned> {
  const alias = options.alias ?? 'acme';
  const templateCode = options.templateCode ?? 'privacy_policy';
  expectJsonObject(
    await runCli(
      [
        'tenant',
        'create',
        '--alias',
        alias,
        '--email',
        `${alias}@example.test`,
        '--password',
        'a long enough password',
      ],
      env,
    ),
  );
  expectJsonObject(
    await runCli(
      ['template', 'create', '--tenant', alias, '--code', templateCode, '--name', 'Privacy'],
      env,
    ),
  );
  const version = expectJsonObject(
    await runCli(
      [
        'version',
        'publish',
        '--tenant',
        alias,
        '--template',
        templateCode,
        '--tag',
        '1.0',
        '--content',
        options.content ?? '<h1>Privacy</h1><p>We keep your e-mail address.</p>',
      ],
      env,
    ),
  );
  const apiKey = expectJsonObject(
    await runCli(['apikey', 'create', '--tenant', alias, '--name', 'e2e key'], env),
  ) as Provisioned['apiKey'];
  return {
    alias,
    templateCode,
    version,
    versionId: String(version.consent_version_id),
    apiKey,
  };
}

/** What `useProvisionedServer` starts: its store, `serve` on it, and a provisioned tenant. */
export interface ProvisionedServer {
  readonly store: TempStore;
  readonly server: ServerProcess;
  readonly p: Provisioned;
}

/**
 * A temporary store with `serve` running on it and a tenant provisioned through the command
 * line, for the tests of the calling `describe` block; stopped and removed after them.
 */
export function useProvisionedServer(testStore: TestStore): ProvisionedServer {
  let running: { store: TempStore; server?: ServerProcess; p?: Provisioned } | undefined;
  beforeAll(async () => {
    running = { store: await makeTempStore(testStore) };
    running.server = await startServer({ store: running.store });
    running.p = await provision(running.server.env);
  });
  afterAll(async () => {
    try {
      await running?.server?.stop(budget(10_000));
    } finally {
      await running?.store.remove();
    }
  });
  const ready = () => {
    if (!running?.server || !running.p) throw new Error('the server is started in beforeAll');
    return { store: running.store, server: running.server, p: running.p };
  };
  return {
    get store() {
      return ready().store;
    },
    get server() {
      return ready().server;
    },
    get p() {
      return ready().p;
    },
  };
}
