import type { Db, Executor, Trx } from '../platform/db.js';
import { AppError } from '../platform/errors.js';
import { sha256Hex } from '../platform/hashing.js';
import { newId } from '../platform/ids.js';
import { lockKey } from '../platform/locks.js';
import { nowIso } from '../platform/time.js';
import { validate } from '../platform/validation.js';
import { generateKey } from './keys.js';
import {
  findActiveKeyNamed,
  findKeyRevocation,
  findKeyView,
  insertApiKey,
  listKeyViews,
  markKeyRevoked,
} from './repository.js';
import { type ApiKeyView, type CreatedApiKey, NewApiKey, type RevokedApiKey } from './schemas.js';

/**
 * Creates a key for the tenant. No two active keys of a tenant share a name (`409 1005`); a
 * revoked key's name may be given to its replacement. Runs in the caller's transaction, or in one
 * of its own.
 */
export async function createApiKey(
  db: Executor,
  tenantId: string,
  input: unknown,
): Promise<CreatedApiKey> {
  const { name } = validate(NewApiKey, input);
  return inTransaction(db, async (trx) => {
    // Two creations of the same name wait for each other, so that only one finds it free.
    await lockKey(trx, `api-key-name:${tenantId}`);
    if (await findActiveKeyNamed(trx, tenantId, name)) {
      throw new AppError('conflict', {
        message: `An active key named "${name}" already exists. Choose another name, or revoke that key first.`,
      });
    }
    const { key, prefix } = generateKey();
    const id = newId();
    await insertApiKey(trx, {
      tenant_id: tenantId,
      id,
      name,
      prefix,
      key_hash: sha256Hex(key),
      created_at: nowIso(),
      last_used_at: null,
      revoked_at: null,
    });
    return { id, name, prefix, key };
  });
}

function inTransaction<T>(db: Executor, work: (trx: Trx) => Promise<T>): Promise<T> {
  return db.isTransaction ? work(db as Trx) : (db as Db).transaction().execute(work);
}

/**
 * Revokes a key of the tenant; revoking it again answers the first revocation time. Runs in the
 * caller's transaction, or in one of its own.
 */
export async function revokeApiKey(
  db: Executor,
  tenantId: string,
  id: string,
): Promise<RevokedApiKey> {
  return inTransaction(db, async (trx) => {
    const row = await findKeyRevocation(trx, tenantId, id);
    if (!row) throw new AppError('notFound', { message: 'API key not found.' });
    if (row.revoked_at) return { id, revoked_at: row.revoked_at };
    const revokedAt = nowIso();
    await markKeyRevoked(trx, tenantId, id, revokedAt);
    return { id, revoked_at: revokedAt };
  });
}

/** The tenant's keys, newest first, revoked ones included. */
export function listApiKeys(db: Executor, tenantId: string): Promise<ApiKeyView[]> {
  return listKeyViews(db, tenantId);
}

/** A key of the tenant; `404 1004` when the tenant has no such key. */
export async function getApiKey(db: Executor, tenantId: string, id: string): Promise<ApiKeyView> {
  const key = await findKeyView(db, tenantId, id);
  if (!key) throw new AppError('notFound', { message: 'API key not found.' });
  return key;
}
