import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/platform/config.js';
import { checkDataKey, DataKeyError, loadDataKey } from '../../src/platform/data-key.js';
import { migrateToLatest } from '../../src/platform/migrate.js';
import { migrateBefore } from '../helpers/schema-history.js';
import { stores, useBareStore } from '../helpers/stores.js';

describe('the data key', () => {
  const dirs: string[] = [];
  const tempDir = () => {
    const dir = mkdtempSync(join(tmpdir(), 'data-key-'));
    dirs.push(dir);
    return dir;
  };
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('is created on first start in the key file (mode 0600), said once, and read back the same after', () => {
    const file = join(tempDir(), 'nested', 'data-encryption.key');
    const said: unknown[] = [];
    const config = { dataEncryptionKey: undefined, dataEncryptionKeyFile: file };
    const key = loadDataKey(config, (details) => said.push(details));
    expect(key).toHaveLength(32);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, 'utf8').trim()).toBe(key.toString('base64'));
    expect(said).toEqual([{ file }]);
    expect(loadDataKey(config, (details) => said.push(details))).toEqual(key);
    expect(said).toHaveLength(1);
  });

  it('DATA_ENCRYPTION_KEY wins over the file, and no file is written', () => {
    const file = join(tempDir(), 'data-encryption.key');
    const key = randomBytes(32);
    const config = loadConfig({
      DATA_ENCRYPTION_KEY: key.toString('base64'),
      DATA_ENCRYPTION_KEY_FILE: file,
    });
    expect(loadDataKey(config, () => undefined)).toEqual(key);
    expect(existsSync(file)).toBe(false);
  });

  it('a key file that does not hold 32 bytes in base64 stops the start, naming the file', () => {
    const file = join(tempDir(), 'data-encryption.key');
    writeFileSync(file, 'c2hvcnQ=\n');
    expect(() =>
      loadDataKey({ dataEncryptionKey: undefined, dataEncryptionKeyFile: file }, () => undefined),
    ).toThrow(new DataKeyError(`The data encryption key in ${file} is not 32 bytes in base64.`));
    expect(() => loadConfig({ DATA_ENCRYPTION_KEY: 'too short' })).toThrow(/DATA_ENCRYPTION_KEY/);
  });
});

describe.each(stores)('a store and its data key on $name', (store) => {
  const bare = useBareStore(store);

  it('keeps the first key it meets, and refuses to start with another', async () => {
    const { db } = bare;
    const key = randomBytes(32);
    await migrateToLatest(db, key);
    await expect(migrateToLatest(db, key)).resolves.toEqual([]);
    await expect(migrateToLatest(db, randomBytes(32))).rejects.toThrow(
      /not the one this store was sealed with/,
    );
  });
});

describe.each(stores)('a store with pending migrations and another data key on $name', (store) => {
  const bare = useBareStore(store);

  it('is refused before any migration runs; with its own key it migrates', async () => {
    const { db } = bare;
    const key = randomBytes(32);
    await migrateBefore(db, '0029', key);
    await checkDataKey(db, key);
    const applied = async () =>
      (
        await db
          .selectFrom('kysely_migration' as never)
          .select('name' as never)
          .execute()
      ).map((row) => (row as { name: string }).name);
    const appliedBefore = await applied();

    await expect(migrateToLatest(db, randomBytes(32))).rejects.toThrow(
      /not the one this store was sealed with.*Nothing was changed/,
    );
    expect(await applied()).toEqual(appliedBefore);
    expect(await migrateToLatest(db, key)).toEqual([
      '0029-lapse-progress',
      '0030-log-epochs',
      '0031-log-witnesses',
      '0032-publications',
      '0033-sensitive-templates',
      '0034-representation-rules',
      '0035-held-consent-acts',
      '0036-subject-requests',
      '0037-request-deliveries',
      '0038-processing-record',
      '0039-request-reminders',
      '0040-cookie-scans',
      '0041-choice-region',
      '0042-choice-variant',
      '0043-cookie-overrides',
      '0044-choice-customer',
      '0045-single-sign-on',
      '0046-scim',
      '0047-passkeys',
      '0048-log-nodes-from-level-4',
      '0049-pending-from-indexes',
      '0050-sqlite-states-by-key',
      '0051-erased-evidence',
      '0052-log-leaf-hashes',
      '0053-queued-leaf-hashes',
      '0054-decision-keys-without-tenant',
      '0055-choice-and-subject-keys-without-tenant',
      '0056-control-change-keys-without-tenant',
      '0057-log-record-key-without-log',
      '0058-uuid-ids',
      '0059-decision-content-hash-optional',
      '0060-cookie-choice-content-hash-optional',
      '0061-decision-times-timestamptz',
      '0062-log-entries-binary',
      '0063-subject-lookups-binary',
      '0064-state-keys-without-tenant',
      '0065-control-state-keys-without-tenant',
      '0066-sealed-columns-binary',
      '0067-customer-time-key-without-id',
      '0068-log-nodes-from-level-6',
      '0069-log-entries-by-number',
      '0070-subject-times-timestamptz',
      '0071-states-without-tenant',
      '0072-sqlite-keys-without-tenant',
      '0073-sqlite-states-without-tenant',
      '0074-sqlite-binary-ids',
    ]);
  });
});
