// The load generator with wrk (Debian's `wrk`): the same protocol as bench/load.mjs, which it
// replaces for runs at full speed. wrk is written in C on epoll, so it is not saturated before
// the server is, where autocannon (a Node process) may be. One wrk thread: it keeps to the load
// core it inherits from this process.
// Usage: node bench/wrk-load.mjs '<json>' (as bench/load.mjs, without `rate`).
import { spawn } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const config = JSON.parse(process.argv[2]);
const script = fileURLToPath(new URL('./wrk.lua', import.meta.url));
const clockTicks = 100;

/** CPU seconds a process has used (utime + stime of /proc/PID/stat), or null once it is gone. */
function cpuOf(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / clockTicks;
  } catch {
    return null;
  }
}

/** Runs wrk for `seconds`; its result line, and the CPU it used (read until it exits). */
function run(seconds) {
  const env = {
    ...process.env,
    BENCH_METHOD: config.method,
    BENCH_PATH: config.path,
    BENCH_BODY: config.body ?? '',
    BENCH_HEADERS: Object.entries(config.headers)
      .map(([name, value]) => `${name}: ${value}`)
      .join('\n'),
    BENCH_KNOWN: String(config.customers.known),
    BENCH_FRESH: String(config.customers.fresh),
    BENCH_WIDTH: String(config.customers.width),
    // A new seed per wrk: the warm-up's fresh ids are not the measured part's again.
    BENCH_SEED: String(randomInt(2 ** 31)),
  };
  const args = [
    '-t1',
    `-c${config.connections}`,
    `-d${seconds}s`,
    '--timeout',
    '10s',
    '-s',
    script,
  ];
  const child = spawn('wrk', [...args, config.url], { env, stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  let cpu = 0;
  child.stdout.on('data', (chunk) => {
    out += chunk;
  });
  const poll = setInterval(() => {
    cpu = cpuOf(child.pid) ?? cpu;
  }, 100);
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (code) => {
      clearInterval(poll);
      const line = out.split('\n').findLast((l) => l.startsWith('{'));
      if (code !== 0 || !line) reject(new Error(`wrk exited ${code}: ${out}`));
      else resolve({ result: JSON.parse(line), cpu });
    });
  });
}

function summary({ result, cpu }) {
  const durationS = result.durationUs / 1e6;
  return {
    durationS,
    requests: result.requests,
    rps: result.requests / durationS,
    p50Ms: result.p50Us / 1000,
    p99Ms: result.p99Us / 1000,
    // wrk counts answers with a status of 400 or more, not each status.
    non2xx: result.status,
    errors: result.connect + result.read + result.write + result.timeout,
    statusCodes: {},
    loadCpu: cpu / durationS,
  };
}

const warmup = config.warmupS > 0 ? summary(await run(config.warmupS)) : null;
process.stdout.write(`${JSON.stringify({ phase: 'measuring' })}\n`);
const measured = await run(config.durationS);
process.stdout.write(`${JSON.stringify({ phase: 'done' })}\n`);
process.stdout.write(`${JSON.stringify({ ...summary(measured), warmup })}\n`);
