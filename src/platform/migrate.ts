import { existsSync, statfsSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import {
  type Kysely,
  type Migration,
  type MigrationProvider,
  type MigrationResultSet,
  Migrator,
  sql,
} from 'kysely';
import semver from 'semver';
import type { Config } from './config.js';
import { checkDataKey, refuseOtherDataKey } from './data-key.js';
import { createDb, type Db, isPostgres, type StoreSettings, type Trx } from './db.js';
import { forgetIdType } from './id-type.js';
import { forgetLogKey } from './log-key.js';
import * as initial from './migrations/0001-initial.js';
import * as backoffice from './migrations/0002-backoffice.js';
import * as decisionLog from './migrations/0003-decision-log.js';
import * as customerHistory from './migrations/0004-customer-history.js';
import * as logAudits from './migrations/0005-log-audits.js';
import { subjectsMigration } from './migrations/0006-subjects.js';
import * as backofficeFlashes from './migrations/0007-backoffice-flashes.js';
import * as team from './migrations/0008-team.js';
import * as twoFactor from './migrations/0009-two-factor.js';
import * as versionReviews from './migrations/0010-version-reviews.js';
import * as products from './migrations/0011-products.js';
import * as apiKeyLastFour from './migrations/0012-api-key-last-four.js';
import * as templateArchive from './migrations/0013-template-archive.js';
import * as contentFiles from './migrations/0014-content-files.js';
import * as locales from './migrations/0015-locales.js';
import * as webhooks from './migrations/0016-webhooks.js';
import * as webhookSecretOverlap from './migrations/0017-webhook-secret-overlap.js';
import * as draftAuthorship from './migrations/0018-draft-authorship.js';
import * as cookies from './migrations/0019-cookies.js';
import * as cookieDecisionsBySystem from './migrations/0020-cookie-decisions-by-system.js';
import * as partners from './migrations/0021-partners.js';
import * as channelBlocks from './migrations/0022-channel-blocks.js';
import * as templateValidity from './migrations/0023-template-validity.js';
import * as controls from './migrations/0024-controls.js';
import * as preferenceCentre from './migrations/0025-preference-centre.js';
import * as preferenceCodes from './migrations/0026-preference-codes.js';
import * as cookieRefusedOrigins from './migrations/0027-cookie-refused-origins.js';
import * as storeSettings from './migrations/0028-store-settings.js';
import * as lapseProgress from './migrations/0029-lapse-progress.js';
import * as logEpochs from './migrations/0030-log-epochs.js';
import * as logWitnesses from './migrations/0031-log-witnesses.js';
import * as publications from './migrations/0032-publications.js';
import * as sensitiveTemplates from './migrations/0033-sensitive-templates.js';
import * as representationRules from './migrations/0034-representation-rules.js';
import * as heldConsentActs from './migrations/0035-held-consent-acts.js';
import * as subjectRequests from './migrations/0036-subject-requests.js';
import * as requestDeliveries from './migrations/0037-request-deliveries.js';
import * as processingRecord from './migrations/0038-processing-record.js';
import * as requestReminders from './migrations/0039-request-reminders.js';
import * as cookieScans from './migrations/0040-cookie-scans.js';
import * as choiceRegion from './migrations/0041-choice-region.js';
import * as choiceVariant from './migrations/0042-choice-variant.js';
import * as cookieOverrides from './migrations/0043-cookie-overrides.js';
import * as choiceCustomer from './migrations/0044-choice-customer.js';
import * as singleSignOn from './migrations/0045-single-sign-on.js';
import * as scim from './migrations/0046-scim.js';
import * as passkeys from './migrations/0047-passkeys.js';
import * as logNodesFromLevel4 from './migrations/0048-log-nodes-from-level-4.js';
import * as pendingFromIndexes from './migrations/0049-pending-from-indexes.js';
import * as sqliteStatesByKey from './migrations/0050-sqlite-states-by-key.js';
import * as erasedEvidence from './migrations/0051-erased-evidence.js';
import * as logLeafHashes from './migrations/0052-log-leaf-hashes.js';
import * as queuedLeafHashes from './migrations/0053-queued-leaf-hashes.js';
import * as decisionKeysWithoutTenant from './migrations/0054-decision-keys-without-tenant.js';
import * as choiceAndSubjectKeysWithoutTenant from './migrations/0055-choice-and-subject-keys-without-tenant.js';
import * as controlChangeKeysWithoutTenant from './migrations/0056-control-change-keys-without-tenant.js';
import * as logRecordKeyWithoutLog from './migrations/0057-log-record-key-without-log.js';
import * as uuidIds from './migrations/0058-uuid-ids.js';
import * as decisionContentHashOptional from './migrations/0059-decision-content-hash-optional.js';
import * as cookieChoiceContentHashOptional from './migrations/0060-cookie-choice-content-hash-optional.js';
import * as decisionTimesTimestamptz from './migrations/0061-decision-times-timestamptz.js';
import * as logEntriesBinary from './migrations/0062-log-entries-binary.js';
import * as subjectLookupsBinary from './migrations/0063-subject-lookups-binary.js';
import * as stateKeysWithoutTenant from './migrations/0064-state-keys-without-tenant.js';
import * as controlStateKeysWithoutTenant from './migrations/0065-control-state-keys-without-tenant.js';
import * as sealedColumnsBinary from './migrations/0066-sealed-columns-binary.js';
import * as customerTimeKeyWithoutId from './migrations/0067-customer-time-key-without-id.js';
import * as logNodesFromLevel6 from './migrations/0068-log-nodes-from-level-6.js';
import * as logEntriesByNumber from './migrations/0069-log-entries-by-number.js';
import * as subjectTimesTimestamptz from './migrations/0070-subject-times-timestamptz.js';
import * as statesWithoutTenant from './migrations/0071-states-without-tenant.js';
import * as sqliteKeysWithoutTenant from './migrations/0072-sqlite-keys-without-tenant.js';
import * as sqliteStatesWithoutTenant from './migrations/0073-sqlite-states-without-tenant.js';
import * as sqliteBinaryIds from './migrations/0074-sqlite-binary-ids.js';
import { sqlitePath } from './sqlite.js';
import { findStoreSetting, saveStoreSetting } from './store-settings-repository.js';
import { serviceVersion } from './version.js';

/**
 * A migration, and what it asks of the releases that run on the schema it leaves. One that only
 * adds (a table, a nullable column, an index) asks nothing: the release before it, which does not
 * know it, goes on working on that schema. One that removes or changes what an earlier release
 * reads sets `oldestRelease` to the first release that no longer reads it; releases older than
 * that then refuse to start on the store (docs/upgrades.md, "Writing a migration").
 */
export type ServiceMigration = Migration & { readonly oldestRelease?: string };

/**
 * Migrations are listed in code, so the compiled build and the test runner load the same set.
 * Converting personal data needs the data key.
 */
export function migrations(dataKey: Buffer): Record<string, ServiceMigration> {
  return {
    '0001-initial': initial,
    '0002-backoffice': backoffice,
    '0003-decision-log': decisionLog,
    '0004-customer-history': customerHistory,
    '0005-log-audits': logAudits,
    '0006-subjects': subjectsMigration(dataKey),
    '0007-backoffice-flashes': backofficeFlashes,
    '0008-team': team,
    '0009-two-factor': twoFactor,
    '0010-version-reviews': versionReviews,
    '0011-products': products,
    '0012-api-key-last-four': apiKeyLastFour,
    '0013-template-archive': templateArchive,
    '0014-content-files': contentFiles,
    '0015-locales': locales,
    '0016-webhooks': webhooks,
    '0017-webhook-secret-overlap': webhookSecretOverlap,
    '0018-draft-authorship': draftAuthorship,
    '0019-cookies': cookies,
    '0020-cookie-decisions-by-system': cookieDecisionsBySystem,
    '0021-partners': partners,
    '0022-channel-blocks': channelBlocks,
    '0023-template-validity': templateValidity,
    '0024-controls': controls,
    '0025-preference-centre': preferenceCentre,
    '0026-preference-codes': preferenceCodes,
    '0027-cookie-refused-origins': cookieRefusedOrigins,
    '0028-store-settings': storeSettings,
    '0029-lapse-progress': lapseProgress,
    '0030-log-epochs': logEpochs,
    '0031-log-witnesses': logWitnesses,
    '0032-publications': publications,
    '0033-sensitive-templates': sensitiveTemplates,
    '0034-representation-rules': representationRules,
    '0035-held-consent-acts': heldConsentActs,
    '0036-subject-requests': subjectRequests,
    '0037-request-deliveries': requestDeliveries,
    '0038-processing-record': processingRecord,
    '0039-request-reminders': requestReminders,
    '0040-cookie-scans': cookieScans,
    '0041-choice-region': choiceRegion,
    '0042-choice-variant': choiceVariant,
    '0043-cookie-overrides': cookieOverrides,
    '0044-choice-customer': choiceCustomer,
    '0045-single-sign-on': singleSignOn,
    '0046-scim': scim,
    '0047-passkeys': passkeys,
    '0048-log-nodes-from-level-4': logNodesFromLevel4,
    '0049-pending-from-indexes': pendingFromIndexes,
    '0050-sqlite-states-by-key': sqliteStatesByKey,
    '0051-erased-evidence': erasedEvidence,
    '0052-log-leaf-hashes': logLeafHashes,
    '0053-queued-leaf-hashes': queuedLeafHashes,
    '0054-decision-keys-without-tenant': decisionKeysWithoutTenant,
    '0055-choice-and-subject-keys-without-tenant': choiceAndSubjectKeysWithoutTenant,
    '0056-control-change-keys-without-tenant': controlChangeKeysWithoutTenant,
    '0057-log-record-key-without-log': logRecordKeyWithoutLog,
    '0058-uuid-ids': uuidIds,
    '0059-decision-content-hash-optional': decisionContentHashOptional,
    '0060-cookie-choice-content-hash-optional': cookieChoiceContentHashOptional,
    '0061-decision-times-timestamptz': decisionTimesTimestamptz,
    '0062-log-entries-binary': logEntriesBinary,
    '0063-subject-lookups-binary': subjectLookupsBinary,
    '0064-state-keys-without-tenant': stateKeysWithoutTenant,
    '0065-control-state-keys-without-tenant': controlStateKeysWithoutTenant,
    '0066-sealed-columns-binary': sealedColumnsBinary,
    '0067-customer-time-key-without-id': customerTimeKeyWithoutId,
    '0068-log-nodes-from-level-6': logNodesFromLevel6,
    '0069-log-entries-by-number': logEntriesByNumber,
    '0070-subject-times-timestamptz': subjectTimesTimestamptz,
    '0071-states-without-tenant': statesWithoutTenant,
    '0072-sqlite-keys-without-tenant': sqliteKeysWithoutTenant,
    '0073-sqlite-states-without-tenant': sqliteStatesWithoutTenant,
    '0074-sqlite-binary-ids': sqliteBinaryIds,
  };
}

/** Where the store is and how to reach it, for the checks made before migrating (`migrateToLatest`). */
export interface MigrationChecks {
  store: StoreSettings;
  /** An SQLite file: free disk wanted beside it beyond its size (`MIGRATION_FREE_DISK_MARGIN_MB`). */
  freeDiskMarginMb: number;
}

/**
 * Applies every pending migration, then checks that `dataKey` is the store's; throws if a
 * migration fails or the key is another. Before anything changes it checks that the store
 * answers, that the key is the store's, and (with `checks`, on an SQLite file, when migrations
 * are pending) that the disk has room for them: a misconfigured start stops having changed
 * nothing. The pending migrations run in one transaction on both stores
 * (`TransactionalDdlSqliteAdapter` in sqlite.ts): one that fails, or a process killed meanwhile,
 * leaves the store as it was before them. `more` are a kind of record's own (declared in its
 * folder), ordered by name with the others.
 *
 * With `checks`, on PostgreSQL, they run on a connection of their own without the timeouts that
 * bound a request (`DATABASE_STATEMENT_TIMEOUT_MS`, and the client's own a second later): a
 * migration's index built on 10 million rows takes longer than any request may.
 */
export async function migrateToLatest(
  db: Db,
  dataKey: Buffer,
  more: Readonly<Record<string, Migration>> = {},
  checks?: MigrationChecks,
): Promise<string[]> {
  try {
    if (!checks || !isPostgres(db) || checks.store.databaseStatementTimeoutMs === 0) {
      return await migrateOn(db, dataKey, more, checks);
    }
    const unbounded = createDb({
      ...checks.store,
      databaseStatementTimeoutMs: 0,
      databasePoolSize: 2,
    });
    try {
      return await migrateOn(unbounded, dataKey, more, checks);
    } finally {
      await unbounded.destroy();
    }
  } finally {
    // The migrations ran on another handle, or were rolled back after one changed the ids' type
    // (0058), or the log's key (0069): this handle's statements read them again.
    forgetIdType(db);
    forgetLogKey(db);
  }
}

async function migrateOn(
  db: Db,
  dataKey: Buffer,
  more: Readonly<Record<string, Migration>>,
  checks: MigrationChecks | undefined,
): Promise<string[]> {
  await checkReachable(db);
  await refuseOtherDataKey(db, dataKey);
  const applied = await appliedMigrations(db);
  const known = knownMigrations(dataKey, more);
  // A newer release's schema, or nothing pending (every start but an upgrade's): Kysely's
  // migrator is not run, since it would only list every table and column of the store twice to
  // find its own two tables, and take and free its lock.
  const ahead = await schemaAheadOf(db, applied, known);
  if (ahead.length > 0 || known.every((name) => applied.includes(name))) {
    await checkDataKey(db, dataKey);
    return [];
  }
  const migrator = serviceMigrator(db, dataKey, more);
  if (checks && !isPostgres(db)) {
    const pending = (await migrator.getMigrations()).filter((m) => m.executedAt === undefined);
    if (pending.length > 0)
      checkFreeDisk(sqlitePath(checks.store.databaseUrl), checks.freeDiskMarginMb, pending.length);
  }
  const result: MigrationResultSet = await migrator.migrateToLatest();
  if (result.error) {
    const failed = result.results?.find((r) => r.status === 'Error')?.migrationName;
    const reason = result.error instanceof Error ? result.error.message : String(result.error);
    const message = failed
      ? `Migration ${failed} failed: ${reason}`
      : `Cannot bring the store's schema up to date (is the store reachable?): ${reason}`;
    throw new Error(message, { cause: result.error });
  }
  await checkDataKey(db, dataKey);
  return (result.results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

/** The checks `migrateToLatest` makes on the store `config` names. */
export function migrationChecks(
  config: StoreSettings & Pick<Config, 'migrationFreeDiskMarginMb'>,
): MigrationChecks {
  const { databaseUrl, sqliteBusyTimeoutMs, databasePoolSize } = config;
  const { databaseStatementTimeoutMs, databaseConnectTimeoutMs } = config;
  return {
    store: {
      databaseUrl,
      sqliteBusyTimeoutMs,
      databasePoolSize,
      databaseStatementTimeoutMs,
      databaseConnectTimeoutMs,
    },
    freeDiskMarginMb: config.migrationFreeDiskMarginMb,
  };
}

export class StoreCheckError extends Error {}

/** The setting (`store_settings`) naming the oldest release that runs on the store's schema. */
const oldestReleaseSetting = 'oldest_release';

/**
 * The migrations the store has that this release does not know: a newer release migrated it.
 * This release runs on that schema (a rolling upgrade: docs/upgrades.md) when it knows every
 * migration before them and is not older than the oldest release the store names (a
 * migration that removes what earlier releases read raises it); otherwise it refuses to start,
 * saying which release to run. Empty for a store this release can migrate.
 */
export async function schemaAhead(
  db: Db,
  dataKey: Buffer,
  more: Readonly<Record<string, Migration>> = {},
): Promise<string[]> {
  return schemaAheadOf(db, await appliedMigrations(db), knownMigrations(dataKey, more));
}

/** The names of this release's migrations and `more`. */
function knownMigrations(dataKey: Buffer, more: Readonly<Record<string, Migration>>): string[] {
  return Object.keys({ ...migrations(dataKey), ...more });
}

/** `schemaAhead`, of the migrations the store records as `applied` and the `known` ones. */
async function schemaAheadOf(
  db: Db,
  applied: readonly string[],
  known: readonly string[],
): Promise<string[]> {
  const ahead = applied.filter((name) => !known.includes(name));
  if (ahead.length === 0) return [];
  const missing = known.filter((name) => !applied.includes(name));
  if (missing.length > 0) {
    throw new StoreCheckError(
      `This store was migrated by another release: it has migrations this release (${serviceVersion}) does not know (${ahead.join(', ')}) and lacks ones it has (${missing.join(', ')}). Start the release that migrated it. Nothing was changed.`,
    );
  }
  const oldest = await findStoreSetting(db, oldestReleaseSetting);
  if (oldest !== undefined && semver.lt(serviceVersion, oldest)) {
    throw new StoreCheckError(
      `This store was migrated by a newer release (${ahead.join(', ')}), whose schema releases older than ${oldest} cannot run on; this is ${serviceVersion}. Start ${oldest} or later, or restore the backup taken before the upgrade (docs/upgrades.md). Nothing was changed.`,
    );
  }
  return ahead;
}

/**
 * The migrations the store records as applied; none on a new store. Whether the migrator's table
 * exists is asked of the catalogue for that one name: Kysely's `getTables` reads every column of
 * every table (on PostgreSQL 20 to 40 ms on a new connection).
 */
async function appliedMigrations(db: Db): Promise<string[]> {
  const { rows: found } = isPostgres(db)
    ? await sql`select 1 from pg_class where oid = to_regclass('kysely_migration')`.execute(db)
    : await sql`select 1 from sqlite_master where type = 'table' and name = 'kysely_migration'`.execute(
        db,
      );
  if (found.length === 0) return [];
  const { rows } = await sql<{ name: string }>`select name from kysely_migration`.execute(db);
  return rows.map((row) => row.name);
}

/** The store answers a query, or the start stops here, before any check that writes. */
export async function checkReachable(db: Db): Promise<void> {
  try {
    await sql`select 1`.execute(db);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new StoreCheckError(
      `The store cannot be reached (${reason}): nothing was changed. Check DATABASE_URL and that the store is running.`,
      { cause: error },
    );
  }
}

/**
 * An SQLite file's pending migrations run in one transaction that may rewrite every page: its
 * WAL can grow to the file's size before the commit, so the disk needs that much free, and a
 * margin. PostgreSQL keeps its own disk; one that fills rolls the migrations back (53100).
 */
function checkFreeDisk(path: string, marginMb: number, pending: number): void {
  if (path === ':memory:' || !existsSync(path)) return;
  const size = statSync(path).size + (existsSync(`${path}-wal`) ? statSync(`${path}-wal`).size : 0);
  const { bavail, bsize } = statfsSync(dirname(path));
  const free = bavail * bsize;
  const wanted = size + marginMb * 1024 * 1024;
  if (free < wanted) {
    const mb = (bytes: number) => Math.ceil(bytes / (1024 * 1024));
    throw new StoreCheckError(
      `Not enough free disk beside ${path} to apply ${pending} pending migration(s): ${mb(free)} MB free, ${mb(wanted)} MB wanted (the store's ${mb(size)} MB, which a migration may rewrite, and MIGRATION_FREE_DISK_MARGIN_MB). Nothing was changed.`,
    );
  }
}

/**
 * Kysely's migrator over the service's migrations and `more`, as `migrateToLatest` runs it; the
 * tests step it one migration at a time (`migrateTo`).
 */
export function serviceMigrator(
  db: Db,
  dataKey: Buffer,
  more: Readonly<Record<string, Migration>> = {},
): Migrator {
  const provider: MigrationProvider = {
    getMigrations: async () => asTheStoreNeeds(db, { ...migrations(dataKey), ...more }),
  };
  return new Migrator({ db, provider });
}

/**
 * Each migration as the store needs it. PostgreSQL: without the statement timeout that bounds a
 * request (`DATABASE_STATEMENT_TIMEOUT_MS`), for the rest of the migrations' transaction, since
 * rewriting a large table takes longer than any request may. SQLite: the migrations run with
 * foreign keys off (`acquireMigrationLock` in sqlite.ts, as SQLite's procedure for rebuilding a
 * table asks), so each is followed, in the same transaction, by a check of every foreign key: one
 * that left a row naming no row fails and is rolled back. PostgreSQL checks its keys itself.
 */
function asTheStoreNeeds(
  db: Db,
  all: Readonly<Record<string, ServiceMigration>>,
): Record<string, Migration> {
  const postgres = isPostgres(db);
  return Object.fromEntries(
    Object.entries(all).map(([name, migration]) => [
      name,
      {
        ...migration,
        async up(trx: Kysely<unknown>) {
          if (postgres) await sql`set local statement_timeout = 0`.execute(trx);
          await migration.up(trx);
          // It may have changed the ids' type (0058): the next one, a kind's making its tables
          // with the store's id type, reads it again; and the log's key (0069).
          forgetIdType(trx);
          forgetLogKey(trx);
          if (migration.oldestRelease !== undefined) {
            await raiseOldestRelease(trx as unknown as Trx, migration.oldestRelease);
          }
          if (postgres) return;
          const broken = await sql`pragma foreign_key_check`.execute(trx);
          if (broken.rows.length > 0) {
            throw new Error(
              `it leaves ${broken.rows.length} row(s) whose foreign key names no row, first ${JSON.stringify(broken.rows[0])}`,
            );
          }
        },
      },
    ]),
  );
}

/** In the migrations' transaction: the store's oldest release, raised to `release`. */
async function raiseOldestRelease(trx: Trx, release: string): Promise<void> {
  const now = await findStoreSetting(trx, oldestReleaseSetting);
  if (now !== undefined && semver.gte(now, release)) return;
  await saveStoreSetting(trx, oldestReleaseSetting, release, { replace: true });
}
