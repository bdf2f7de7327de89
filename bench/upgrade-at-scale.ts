/**
 * An upgrade at scale: the previous release (the newest in CHANGELOG.md, built from git as
 * `test/e2e/previous-release.test.ts` builds it) makes a store with its own command line and
 * records `BENCH_DECISIONS` decisions (default 1,000,000) through its own HTTP API; this checkout
 * then migrates it (`consent-service migrate`, timed), audits the tenant's log, verifies the
 * release's receipts offline, and serves the store, whose receipts of the old decisions must
 * still verify and prove the same leaves. On an SQLite file, or on PostgreSQL with
 * `BENCH_DATABASE_URL` (a server whose user may create a database; one is made and dropped).
 *
 *   npm run bench:upgrade
 *   BENCH_DECISIONS=5000 npm run bench:upgrade
 *   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npm run bench:upgrade
 *
 * Prints one JSON line; exits 1 when a check failed (`failures` says which).
 */
import { execFile } from 'node:child_process';
import { randomBytes, randomInt } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { main } from '../src/cli/main.js';
import { generateNoteKeys } from '../src/proof/index.js';
import { freePort } from '../test/helpers/postgres-server.js';
import { buildRelease, previousRelease } from '../test/helpers/previous-release.js';
import { dropDatabase, query, recreateDatabase } from './postgres.js';
import { serverCore, spawnPinned, stopAll, stopProcess } from './processes.js';

const decisions = Math.floor(Number(process.env.BENCH_DECISIONS ?? 1_000_000) / 2) * 2;
const adminUrl = process.env.BENCH_DATABASE_URL;
const inFlight = 48;
const sampleSize = 200;
const alias = 'bench';
const currentBin = fileURLToPath(new URL('../bin/consent-service', import.meta.url));
const agent = new Agent({ keepAlive: true, maxSockets: inFlight });

const dir = mkdtempSync(join(tmpdir(), 'bench-upgrade-'));
const dbName = `bench_upgrade_${randomBytes(4).toString('hex')}`;
const failures: string[] = [];
let releaseDir: string | undefined;

const progress = (text: string) => process.stderr.write(`${new Date().toISOString()} ${text}\n`);
const round = (value: number) => Math.round(value * 100) / 100;

try {
  const databaseUrl = adminUrl ? await recreateDatabase(adminUrl, dbName) : join(dir, 'consent.db');
  const env = serviceEnv(databaseUrl);
  const release = previousRelease();
  progress(`building release ${release.version} (${release.commit.slice(0, 7)})`);
  releaseDir = await buildRelease(release.commit);
  const releaseBin = join(releaseDir, 'bin', 'consent-service');

  // The release makes its store with its own command line, as an operator of it would have.
  await cli(
    releaseBin,
    env,
    'tenant',
    'create',
    '--alias',
    alias,
    '--email',
    'bench@example.test',
    '--password',
    'a long enough password',
  );
  await cli(
    releaseBin,
    env,
    'template',
    'create',
    '--tenant',
    alias,
    '--code',
    'privacy_policy',
    '--name',
    'Privacy',
  );
  const version = await cli(
    releaseBin,
    env,
    'version',
    'publish',
    '--tenant',
    alias,
    '--template',
    'privacy_policy',
    '--tag',
    '1.0',
    '--content',
    '<h1>Privacy</h1><p>We keep your e-mail address.</p>',
  );
  const apiKey = String(
    (await cli(releaseBin, env, 'apikey', 'create', '--tenant', alias, '--name', 'bench')).key,
  );
  const versionId = String(version.consent_version_id);

  let server = await serve(releaseBin, env);
  progress(`recording ${decisions} decisions with ${release.version} at ${server.url}`);
  const recorded = await record(server.url, apiKey, versionId);
  progress(`recorded in ${round(recorded.seconds)} s; waiting for the log to integrate them`);
  const integratedSeconds = await waitIntegrated(server.url, apiKey, recorded.lastId);
  const key = await verifierKey(server.url, apiKey);
  const oldReceipts = new Map<string, string>();
  for (const id of recorded.sample) oldReceipts.set(id, await receipt(server.url, apiKey, id));
  await server.stop();

  const receiptDir = join(dir, 'receipts');
  mkdirSync(receiptDir);
  const bytesBefore = await storeBytes(databaseUrl);
  progress(`migrating a store of ${bytesBefore} bytes with this checkout`);
  const started = performance.now();
  const migrated = await cli(currentBin, env, 'migrate');
  const migrationSeconds = (performance.now() - started) / 1000;
  const bytesAfter = await storeBytes(databaseUrl);

  progress('auditing');
  const auditStarted = performance.now();
  const audit = await run(currentBin, env, 'audit', '--tenant', alias);
  const auditSeconds = (performance.now() - auditStarted) / 1000;
  const auditReport = JSON.parse(audit.stdout || '{}') as { ok?: boolean; findings?: unknown[] };
  if (audit.code !== 0 || auditReport.ok !== true || auditReport.findings?.length !== 0) {
    failures.push(`audit exit ${audit.code}: ${audit.stdout.trim()} ${audit.stderr.trim()}`);
  }

  progress(`verifying ${oldReceipts.size} receipts of ${release.version} offline`);
  const files = [...oldReceipts].map(([id, text]) => {
    const file = join(receiptDir, `${id}.json`);
    writeFileSync(file, text);
    return file;
  });
  const validOld = await verifyAll(files, key, 'old');

  // This checkout serves the upgraded store: new decisions are appended after the old ones, and
  // each old receipt asked again proves the same leaf at the same place, under a newer checkpoint.
  server = await serve(currentBin, env);
  const newIds: string[] = [];
  for (let i = 0; i < 10; i++) {
    const answer = await post(server.url, apiKey, `after-upgrade-${i}`, versionId, 'given');
    if (answer.status !== 201)
      failures.push(`a decision after the upgrade answered ${answer.status}`);
    else newIds.push(decisionId(answer.body));
  }
  const again: string[] = [];
  for (const [id, old] of oldReceipts) {
    const now = await receipt(server.url, apiKey, id);
    if (!sameLeaf(old, now))
      failures.push(`the receipt of ${id} proves another leaf after the upgrade`);
    const file = join(receiptDir, `${id}.again.json`);
    writeFileSync(file, now);
    again.push(file);
  }
  for (const id of newIds) {
    const file = join(receiptDir, `${id}.new.json`);
    writeFileSync(file, await receipt(server.url, apiKey, id));
    again.push(file);
  }
  if ((await verifierKey(server.url, apiKey)) !== key) failures.push('the verifier key changed');
  const validAgain = await verifyAll(again, key, 'served again');
  await server.stop();

  console.log(
    JSON.stringify({
      store: adminUrl ? 'postgres' : 'sqlite',
      decisions,
      customers: decisions / 2,
      release: release.version,
      record_seconds: round(recorded.seconds),
      decisions_per_second: Math.round(decisions / recorded.seconds),
      integrated_after_seconds: round(integratedSeconds),
      migrations: {
        applied: migrated.applied,
        seconds: round(migrationSeconds),
        seconds_per_million_decisions: round((migrationSeconds * 1_000_000) / decisions),
      },
      audit: {
        exit: audit.code,
        ok: auditReport.ok,
        findings: auditReport.findings?.length,
        seconds: round(auditSeconds),
      },
      receipts: {
        checked: oldReceipts.size,
        valid: validOld,
        served_again_checked: again.length,
        served_again_valid: validAgain,
      },
      bytes: { before: bytesBefore, after: bytesAfter },
      ok: failures.length === 0,
      failures,
    }),
  );
} catch (error) {
  failures.push(String(error));
  console.error(error);
} finally {
  await stopAll();
  if (adminUrl) await dropDatabase(adminUrl, dbName);
  rmSync(dir, { recursive: true, force: true });
  if (releaseDir) rmSync(releaseDir, { recursive: true, force: true });
}
if (failures.length > 0) process.exitCode = 1;

/**
 * Both releases' settings: the caller's environment without the service's own, one data key and
 * one log signing key (new for each run), loopback only, no rate limit.
 */
function serviceEnv(databaseUrl: string): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const name of Object.keys(env)) {
    if (/^(PORT|HOST|PUBLIC_BASE_URL|LOG_|DATABASE_|DATA_ENCRYPTION_|WORKERS$)/.test(name)) {
      delete env[name];
    }
  }
  return {
    ...env,
    DATABASE_URL: databaseUrl,
    DATA_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    LOG_SIGNING_KEY: generateNoteKeys('bench.local/consent-log').signerKey,
    LOG_LEVEL: 'warn',
    HOST: '127.0.0.1',
    RATE_LIMIT_PER_MINUTE: '0',
    COOKIE_RATE_LIMIT_PER_MINUTE: '0',
  };
}

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

/** A command of `bin` (the release's or this checkout's), run in the store's folder. */
async function run(bin: string, env: NodeJS.ProcessEnv, ...args: string[]): Promise<Ran> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [bin, ...args], {
      env,
      cwd: dir,
      maxBuffer: 64 * 1024 * 1024,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? 1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

/** A management command that must succeed; its JSON. */
async function cli(bin: string, env: NodeJS.ProcessEnv, ...args: string[]) {
  const result = await run(bin, env, ...args);
  if (result.code !== 0)
    throw new Error(`${args.join(' ')}: exit ${result.code}: ${result.stderr}`);
  return JSON.parse(result.stdout) as Record<string, unknown>;
}

/** `serve` of `bin` on the server core, once it answers `/api/health`. */
async function serve(bin: string, env: NodeJS.ProcessEnv) {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = spawnPinned(serverCore, process.execPath, [bin, 'serve'], {
    env: { ...env, PORT: String(port), PUBLIC_BASE_URL: url },
    cwd: dir,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline && child.exitCode === null) {
    try {
      if ((await fetch(`${url}/api/health`)).status === 200) {
        return { url, stop: () => stopProcess(child, 60_000) };
      }
    } catch {
      // Not listening yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${bin} serve did not answer /api/health (exit ${child.exitCode})`);
}

/** One decision through the API, on a kept-alive loopback connection. */
function post(url: string, apiKey: string, customer: string, versionId: string, decision: string) {
  const body = JSON.stringify({ consent_version_id: versionId, decision });
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = request(
      `${url}/api/v1/customers/${customer}/consents/decisions`,
      {
        method: 'POST',
        agent,
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          'x-system-api-key': apiKey,
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          text += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

function decisionId(body: string): string {
  const data = (JSON.parse(body) as { data: { decision_id?: string; id?: string } }).data;
  const id = data.decision_id ?? data.id;
  if (!id) throw new Error(`no decision id in ${body}`);
  return id;
}

/**
 * `decisions / 2` customers, each `given` then `withdraw`, from `inFlight` customers at a time.
 * Keeps the ids of the first and last decisions and of random ones between.
 */
async function record(url: string, apiKey: string, versionId: string) {
  const customers = decisions / 2;
  const wanted = new Set<number>([0, decisions - 1]);
  while (wanted.size < Math.min(sampleSize, decisions)) wanted.add(randomInt(decisions));
  const sample: string[] = [];
  let next = 0;
  let lastId = '';
  let errors = 0;
  let firstError = '';
  const started = performance.now();
  const worker = async () => {
    while (next < customers) {
      const customer = next++;
      for (const [step, decision] of ['given', 'withdraw'].entries()) {
        const index = customer * 2 + step;
        const answer = await post(url, apiKey, `customer-${customer}`, versionId, decision);
        if (answer.status !== 201) {
          errors++;
          firstError ||= `${answer.status} ${answer.body}`;
          continue;
        }
        if (wanted.has(index)) sample.push(decisionId(answer.body));
        lastId = decisionId(answer.body);
      }
      if (customer % 50_000 === 0 && customer > 0) progress(`${customer * 2} decisions`);
    }
  };
  await Promise.all(Array.from({ length: inFlight }, worker));
  const seconds = (performance.now() - started) / 1000;
  if (errors > 0) failures.push(`${errors} decisions not recorded, the first: ${firstError}`);
  return { seconds, sample, lastId };
}

async function get(url: string, apiKey: string, path: string) {
  const response = await fetch(`${url}${path}`, { headers: { 'x-system-api-key': apiKey } });
  return { status: response.status, text: await response.text() };
}

/** Seconds until the log's checkpoint covers every decision and the last one's receipt is ready. */
async function waitIntegrated(url: string, apiKey: string, lastId: string): Promise<number> {
  const started = performance.now();
  const deadline = Date.now() + 30 * 60_000;
  while (Date.now() < deadline) {
    const checkpoint = await get(url, apiKey, '/api/v1/log/checkpoint');
    const size = checkpoint.status === 200 ? JSON.parse(checkpoint.text).data.size : 0;
    if (size >= decisions) {
      await receipt(url, apiKey, lastId);
      return (performance.now() - started) / 1000;
    }
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
  throw new Error('the log did not integrate every decision within 30 minutes');
}

/** A decision's receipt as the API answers it, once its leaf is appended. */
async function receipt(url: string, apiKey: string, id: string): Promise<string> {
  for (let attempt = 0; attempt < 60; attempt++) {
    const answer = await get(url, apiKey, `/api/v1/decisions/${id}/receipt?wait=true`);
    if (answer.status === 200) return answer.text;
    if (answer.status !== 202) throw new Error(`receipt of ${id}: ${answer.status} ${answer.text}`);
  }
  throw new Error(`the receipt of ${id} was never ready`);
}

async function verifierKey(url: string, apiKey: string): Promise<string> {
  const answer = await get(url, apiKey, '/api/v1/log/key');
  if (answer.status !== 200) throw new Error(`log key: ${answer.status} ${answer.text}`);
  return String(JSON.parse(answer.text).data.verifier_key);
}

/** The same decision, leaf and place in the log: what a receipt proves, whatever its checkpoint. */
function sameLeaf(before: string, after: string): boolean {
  const proved = (text: string) => {
    const data = JSON.parse(text).data;
    return JSON.stringify([data.decision, data.leaf, data.leaf_index, data.verifier_key]);
  };
  return proved(before) === proved(after);
}

/**
 * `verify-receipt FILE --key KEY` of this checkout's command line for each file; how many pass.
 * It runs in this process (the command's own `main`, as `bin/consent-service` calls it): a
 * process per receipt would take longer than the migration.
 */
async function verifyAll(files: string[], key: string, what: string) {
  let valid = 0;
  for (const file of files) {
    let stdout = '';
    let stderr = '';
    const io = {
      stdout: (text: string) => {
        stdout += text;
      },
      stderr: (text: string) => {
        stderr += text;
      },
      env: {},
    };
    const code = await main(['verify-receipt', file, '--key', key], io);
    if (code === 0 && JSON.parse(stdout).valid === true) valid++;
    else failures.push(`${what} receipt ${file} does not verify: ${stderr.trim()}`);
  }
  return valid;
}

/** SQLite: the file and its WAL; PostgreSQL: `pg_database_size`. */
async function storeBytes(databaseUrl: string): Promise<number> {
  if (adminUrl) {
    const [row] = await query<{ b: string }>(adminUrl, 'select pg_database_size($1) as b', [
      dbName,
    ]);
    return Number(row?.b);
  }
  return [databaseUrl, `${databaseUrl}-wal`]
    .filter((file) => existsSync(file))
    .reduce((sum, file) => sum + statSync(file).size, 0);
}
