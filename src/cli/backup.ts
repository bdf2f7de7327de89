import { existsSync } from 'node:fs';
import { type AuditReport, auditLog } from '../decision-log/index.js';
import type { Config } from '../platform/config.js';
import { loadDataKey, refuseOtherDataKey } from '../platform/data-key.js';
import { isPostgresUrl } from '../platform/postgres.js';
import { sqlitePath } from '../platform/sqlite.js';
import {
  BackupError,
  backupSqliteFile,
  openReadOnly,
  restoreSqliteFile,
} from '../platform/sqlite-backup.js';
import { nowIso } from '../platform/time.js';
import type { Registry } from '../record-kinds/index.js';
import { createVault } from '../subjects/index.js';
import { listTenants } from '../tenants/index.js';

/** What a backup or a restore says of each tenant's log in the copy it made. */
interface Audited {
  tenants: Array<{ alias: string; ok: boolean; entries: number; findings: number }>;
  ok: boolean;
}

const postgresProcedure =
  'On PostgreSQL, back up with pg_dump (pg_dump --format=custom --file=consent.dump "$DATABASE_URL") or your base backups, and restore with pg_restore into an empty database: docs/operations.md, "Backups".';

/**
 * `backup --to FILE`: an SQLite store copied while the service runs (SQLite's online backup
 * API), then every tenant's log audited in the copy, read-only. The copy holds personal data
 * sealed under the data key, which it does not contain: keep the two apart.
 */
export async function backupStore(config: Config, to: string, registry: Registry) {
  if (isPostgresUrl(config.databaseUrl)) throw new BackupError(postgresProcedure);
  const made = await backupSqliteFile(
    sqlitePath(config.databaseUrl),
    to,
    config.sqliteBusyTimeoutMs,
  );
  return { ...made, ...(await auditCopy(config, to, registry)) };
}

/**
 * `restore --from FILE`: a backup put in place of the SQLite store, once it is found intact and
 * sealed with this data key (the store it replaces is kept beside it), then every tenant's log
 * audited. The service must be stopped; the next start applies the migrations the backup lacks.
 */
export async function restoreStore(config: Config, from: string, registry: Registry) {
  if (isPostgresUrl(config.databaseUrl)) throw new BackupError(postgresProcedure);
  const backup = openReadOnly(from);
  try {
    await refuseOtherDataKey(backup, dataKeyOf(config));
  } catch (error) {
    throw new BackupError(
      `${from} cannot be restored here: ${(error as Error).message.replace('this store', 'the backup')}`,
    );
  } finally {
    await backup.destroy();
  }
  const path = sqlitePath(config.databaseUrl);
  const restored = await restoreSqliteFile(path, from, nowIso());
  return { ...restored, ...(await auditCopy(config, path, registry)) };
}

/** The data key as the settings give it; never made here (a backup needs the store's own). */
function dataKeyOf(config: Config): Buffer {
  if (config.dataEncryptionKey === undefined && !existsSync(config.dataEncryptionKeyFile)) {
    throw new BackupError(
      `There is no data key at ${config.dataEncryptionKeyFile}: a backup is read with the key of the store it was taken from.`,
    );
  }
  return loadDataKey(config, () => {});
}

async function auditCopy(config: Config, file: string, registry: Registry): Promise<Audited> {
  const db = openReadOnly(file);
  try {
    const vault = createVault(dataKeyOf(config));
    const tenants: Audited['tenants'] = [];
    for (const tenant of await listTenants(db)) {
      const report: AuditReport = await auditLog(db, vault, registry, tenant.id);
      tenants.push({
        alias: tenant.alias,
        ok: report.ok,
        entries: report.entries,
        findings: report.findings.length,
      });
    }
    return { tenants, ok: tenants.every((t) => t.ok) };
  } finally {
    await db.destroy();
  }
}
