import cluster from 'node:cluster';
import type { AddressInfo } from 'node:net';
import { isAbsolute, relative } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { checkSigningKey, refuseLogsBehind, type SigningKeyLog } from '../decision-log/index.js';
import { deleteExpiredHeldActs } from '../decisions/index.js';
import { observedStore } from '../metrics/index.js';
import type { Config } from '../platform/config.js';
import { type KeyCreated, loadDataKey } from '../platform/data-key.js';
import type { Db } from '../platform/db.js';
import { typesKeptAsText } from '../platform/id-type.js';
import {
  checkReachable,
  migrateToLatest,
  migrationChecks,
  schemaAhead,
} from '../platform/migrate.js';
import { recordServedBaseUrl } from '../platform/public-base-url.js';
import { comparesTextByBytes } from '../platform/text-order.js';
import { nowIso } from '../platform/time.js';
import { purgeExpiredLinkUses, purgeOldCodes } from '../preference-centre/index.js';
import { purgeExpiredIdempotencyRecords } from '../record-kinds/index.js';
import { countTenants } from '../tenants/index.js';
import { buildApp } from './app.js';
import { registry } from './kinds.js';

const purgeEveryMs = 60 * 60 * 1000;

/**
 * Runs the service: applies pending migrations, listens, and on SIGTERM or SIGINT stops taking
 * requests, lets those in flight finish, and closes the store.
 */
export async function serve(config: Config): Promise<FastifyInstance> {
  const { db, metrics } = observedStore(config);
  // Before a key file is made for a store that may not even be there.
  await checkReachable(db);
  let keyCreated: Parameters<KeyCreated> | undefined;
  const dataKey = loadDataKey(config, (...said) => {
    keyCreated = said;
  });
  let signingKeyCreated: Parameters<SigningKeyLog['warn']> | undefined;
  await checkSigningKey(db, config, {
    warn: (...said) => {
      signingKeyCreated = said;
    },
  });
  const applied = await migrateToLatest(db, dataKey, registry.migrations, migrationChecks(config));
  // A store restored behind what was signed is not signed on (docs/proof.md).
  await refuseLogsBehind(db, config.logCheckpointsFile);
  const app = await buildApp(config, db, metrics ? { metrics } : {});
  if (keyCreated) app.log.warn(...keyCreated);
  if (signingKeyCreated) app.log.warn(...signingKeyCreated);
  if (applied.length > 0) app.log.info({ migrations: applied }, 'store schema brought up to date');
  // With several workers, one of them says what the store lacks (here and the hint below).
  const firstWorker = (cluster.worker?.id ?? 1) === 1;
  if (firstWorker && !(await comparesTextByBytes(db))) {
    app.log.warn(
      "The database orders text by a language's collation, not byte by byte: lists ordered " +
        'by a code or a name come out in another order than on SQLite, and look-ups cost more. ' +
        "Make the database with LC_COLLATE 'C' (docs/postgresql.md, \"The database's collation\").",
    );
  }
  for (const { message, reason } of firstWorker ? await typesKeptAsText(db) : []) {
    app.log.warn({ reason }, message);
  }
  const ahead = await schemaAhead(db, dataKey, registry.migrations);
  if (ahead.length > 0) {
    app.log.info(
      { migrations: ahead },
      'the store was migrated by a newer release, whose schema this one runs on (a rolling upgrade)',
    );
  }
  // Counted before listening: a tenant made as soon as the server answers does not hide the hint
  // below.
  const noTenantYet = firstWorker && (await countTenants(db)) === 0;
  try {
    await app.listen({ port: config.port, host: config.host });
  } catch (error) {
    app.log.fatal({ err: error }, 'cannot listen');
    // `listen` made the app ready, which started its writers and periodic passes: they stop
    // before the store closes, or they go on failing against it for as long as the process lives
    // (a command run in the same process as others, as the tests run it).
    await app.close();
    await db.destroy();
    throw error;
  }
  try {
    const { port } = app.server.address() as AddressInfo;
    await recordServedBaseUrl(db, config, port);
  } catch (error) {
    // The command line then prints on its own setting, as before the store kept one.
    app.log.warn({ err: error }, 'could not keep the public base URL with the store');
  }
  if (noTenantYet) {
    const cli = commandLine();
    app.log.info(
      `The store has no tenant yet: run "${cli} demo" for a ready-to-try tenant, template and ` +
        `API key, or "${cli} tenant create --alias A --email E --password P" then ` +
        `"${cli} apikey create --tenant A --name N".`,
    );
  }
  const purge = setInterval(() => void purgeIdempotencyRecords(app, db), purgeEveryMs);
  purge.unref();
  const shutdown = (signal: string) => {
    clearInterval(purge);
    void stop(app, db, config.shutdownTimeoutMs, signal);
  };
  process.once('SIGTERM', shutdown);
  process.once('SIGINT', shutdown);
  return app;
}

/**
 * The command line as this server was started, to run from the same folder: `node
 * bin/consent-service` in the folder that holds it (in the container image, /app), else by its
 * full path. `npx consent-service` is no help there: npx installs the folder's package first,
 * which needs the build tools the image leaves out.
 */
function commandLine(): string {
  const program = process.argv[1] ?? 'bin/consent-service';
  const inside = relative(process.cwd(), program);
  const shown = inside.startsWith('..') || isAbsolute(inside) ? program : inside;
  // A path a shell would split or expand goes in single quotes.
  const word = /^[\w./-]+$/.test(shown) ? shown : `'${shown.replaceAll("'", "'\\''")}'`;
  return `node ${word}`;
}

async function stop(app: FastifyInstance, db: Db, timeoutMs: number, signal: string) {
  app.log.info({ signal }, 'shutting down: finishing requests in flight');
  const deadline = setTimeout(() => {
    app.log.error('requests still in flight after the shutdown timeout; exiting');
    process.exit(1);
  }, timeoutMs);
  deadline.unref();
  try {
    await app.close();
    await db.destroy();
    app.log.info('stopped');
    // A cluster worker's channel to its primary would keep it alive.
    cluster.worker?.disconnect();
  } catch (error) {
    app.log.error({ err: error }, 'shutdown failed');
    process.exitCode = 1;
  } finally {
    clearTimeout(deadline);
  }
}

async function purgeIdempotencyRecords(app: FastifyInstance, db: Db): Promise<void> {
  try {
    const deleted = await purgeExpiredIdempotencyRecords(db);
    if (deleted > 0) app.log.info({ deleted }, 'expired idempotency keys removed');
  } catch (error) {
    app.log.warn({ err: error }, 'could not remove expired idempotency keys');
  }
  try {
    const links = await purgeExpiredLinkUses(db);
    const codes = await purgeOldCodes(db);
    if (links + codes > 0) {
      app.log.info({ links, codes }, "expired preference links' uses and sign-in codes removed");
    }
  } catch (error) {
    app.log.warn({ err: error }, "could not remove expired preference links' uses and codes");
  }
  try {
    await deleteExpiredHeldActs(db, nowIso());
  } catch (error) {
    app.log.warn({ err: error }, 'could not remove expired held acts of co-consents');
  }
}
