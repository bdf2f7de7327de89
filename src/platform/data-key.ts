import { createHmac, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import type { Config } from './config.js';
import type { Executor } from './db.js';
import { readOrCreateSecret } from './secret-file.js';

export class DataKeyError extends Error {}

/** A fingerprint of the data key the store's personal data is sealed under. */
export interface StoreKeysTable {
  name: string;
  fingerprint: string;
  created_at: string;
}

/** Where a key that was just created is reported (pino's `warn`, or stderr). */
export type KeyCreated = (details: { file: string }, message: string) => void;

/**
 * The data key every customer's own key is sealed under: `DATA_ENCRYPTION_KEY` when set, else
 * the file `DATA_ENCRYPTION_KEY_FILE`, created (mode 0600) on first start. Losing it makes every
 * customer's personal data unreadable; every instance of one service must hold the same one,
 * which the store checks at start (`checkDataKey`).
 */
export function loadDataKey(
  config: Pick<Config, 'dataEncryptionKey' | 'dataEncryptionKeyFile'>,
  created: KeyCreated,
): Buffer {
  const file = config.dataEncryptionKeyFile;
  const text =
    config.dataEncryptionKey ??
    readOrCreateSecret(
      file,
      () => randomBytes(32).toString('base64'),
      () =>
        created(
          { file },
          'created the data encryption key: keep this file secret and backed up, without it no personal data can be read',
        ),
    );
  const key = Buffer.from(text.trim(), 'base64');
  if (key.length !== 32 || key.toString('base64') !== text.trim()) {
    throw new DataKeyError(
      `The data encryption key${config.dataEncryptionKey ? '' : ` in ${file}`} is not 32 bytes in base64.`,
    );
  }
  return key;
}

/**
 * `loadDataKey` for a store already open, which creates a key file only for a store that has no
 * key yet: a command run from another folder than the store's key file (its default is `data/`
 * under the working directory for PostgreSQL) would otherwise write a new key there and only
 * then be refused by the store. Refused before anything is written.
 */
export async function loadDataKeyFor(
  db: Executor,
  config: Pick<Config, 'dataEncryptionKey' | 'dataEncryptionKeyFile'>,
  created: KeyCreated,
): Promise<Buffer> {
  const file = config.dataEncryptionKeyFile;
  if (config.dataEncryptionKey === undefined && !existsSync(file) && (await isSealed(db))) {
    throw new DataKeyError(
      `This store is sealed with a data encryption key, and there is none at ${file}: run the command where that file is, or set DATA_ENCRYPTION_KEY_FILE (or DATA_ENCRYPTION_KEY). No key was created.`,
    );
  }
  return loadDataKey(config, created);
}

/** Whether the store has met its data key (a store not migrated yet has not). */
async function isSealed(db: Executor): Promise<boolean> {
  try {
    const row = await db
      .selectFrom('store_keys')
      .select('name')
      .where('name', '=', 'data')
      .executeTakeFirst();
    return row !== undefined;
  } catch {
    // No store_keys table yet: a new store, whose first key is made now.
    return false;
  }
}

/** Names the key without revealing it: HMAC-SHA256 of a fixed label under the key. */
export function keyFingerprint(dataKey: Buffer): string {
  return createHmac('sha256', dataKey).update('consent-service/data-key-check/v1').digest('hex');
}

/**
 * Refuses a data key other than the one the store's personal data was sealed under (an
 * instance started with a fresh key file would seal records nobody else can open). The first
 * key a store meets becomes its key.
 */
/**
 * Refuses another key before anything is changed: a store that already keeps its key's
 * fingerprint (`store_keys`) and a start with another key must not migrate it first and only
 * then stop, past the point where the release before could start on it again. A store without
 * the table (new, or from before it) has nothing to compare yet: `checkDataKey` keeps the key
 * after the migrations.
 */
export async function refuseOtherDataKey(db: Executor, dataKey: Buffer): Promise<void> {
  let stored: string | undefined;
  try {
    stored = (
      await db
        .selectFrom('store_keys')
        .select('fingerprint')
        .where('name', '=', 'data')
        .executeTakeFirst()
    )?.fingerprint;
  } catch {
    // No `store_keys` yet (or no store at all: the migrator says so next).
    return;
  }
  if (stored !== undefined && stored !== keyFingerprint(dataKey)) {
    throw new DataKeyError(
      'The data encryption key is not the one this store was sealed with: start with the same DATA_ENCRYPTION_KEY (or key file) as every other instance. Nothing was changed.',
    );
  }
}

export async function checkDataKey(db: Executor, dataKey: Buffer): Promise<void> {
  const fingerprint = keyFingerprint(dataKey);
  await db
    .insertInto('store_keys')
    .values({ name: 'data', fingerprint, created_at: new Date().toISOString() })
    .onConflict((oc) => oc.column('name').doNothing())
    .execute();
  const stored = await db
    .selectFrom('store_keys')
    .select('fingerprint')
    .where('name', '=', 'data')
    .executeTakeFirstOrThrow();
  if (stored.fingerprint !== fingerprint) {
    throw new DataKeyError(
      'The data encryption key is not the one this store was sealed with: start with the same DATA_ENCRYPTION_KEY (or key file) as every other instance.',
    );
  }
}
