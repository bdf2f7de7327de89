import {
  type Kysely,
  type Migration,
  type MigrationProvider,
  type MigrationResultSet,
  Migrator,
  sql,
} from 'kysely';
import { checkDataKey, refuseOtherDataKey } from './data-key.js';
import { type Db, isPostgres } from './db.js';
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

/**
 * Migrations are listed in code, so the compiled build and the test runner load the same set.
 * Converting personal data needs the data key.
 */
export function migrations(dataKey: Buffer): Record<string, Migration> {
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
  };
}

/**
 * Applies every pending migration, then checks that `dataKey` is the store's; throws if a
 * migration fails or the key is another. The pending migrations run in one transaction on both
 * stores (`TransactionalDdlSqliteAdapter` in sqlite.ts): one that fails, or a process killed
 * meanwhile, leaves the store as it was before them. `more` are a
 * kind of record's own (declared in its folder), ordered by name with the others.
 */
export async function migrateToLatest(
  db: Db,
  dataKey: Buffer,
  more: Readonly<Record<string, Migration>> = {},
): Promise<string[]> {
  await refuseOtherDataKey(db, dataKey);
  const result: MigrationResultSet = await serviceMigrator(db, dataKey, more).migrateToLatest();
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
    getMigrations: async () => checkingForeignKeys(db, { ...migrations(dataKey), ...more }),
  };
  return new Migrator({ db, provider });
}

/**
 * On SQLite, the migrations run with foreign keys off (`acquireMigrationLock` in sqlite.ts, as
 * SQLite's procedure for rebuilding a table asks): each is followed, in the same transaction, by
 * a check of every foreign key, so one that left a row naming no row fails and is rolled back.
 * PostgreSQL checks its keys itself.
 */
function checkingForeignKeys(
  db: Db,
  all: Readonly<Record<string, Migration>>,
): Record<string, Migration> {
  if (isPostgres(db)) return { ...all };
  return Object.fromEntries(
    Object.entries(all).map(([name, migration]) => [
      name,
      {
        ...migration,
        async up(trx: Kysely<unknown>) {
          await migration.up(trx);
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
