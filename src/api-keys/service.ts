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
  updateKeyName,
} from './repository.js';
import { type ApiKeyView, type CreatedApiKey, NewApiKey, type RevokedApiKey } from './schemas.js';

/**
 * Creates a key for the tenant. No two active keys of a tenant share a name (`409 1005`); a
 * revoked key's name may be given to its replacement. Runs in the caller's transaction; given the
 * store itself, in one of its own (the demo command still calls it so).
 */
export async function createApiKey(
  db: Executor,
  tenantId: string,
  input: unknown,
): Promise<CreatedApiKey> {
  const { name } = validate(NewApiKey, input);
  return inTransaction(db, async (trx) => {
    await refuseTakenName(trx, tenantId, name);
    const { key, prefix } = generateKey();
    const id = newId();
    await insertApiKey(trx, {
      tenant_id: tenantId,
      id,
      name,
      prefix,
      key_hash: sha256Hex(key),
      last_four: key.slice(-4),
      created_at: nowIso(),
      last_used_at: null,
      revoked_at: null,
    });
    return { id, name, prefix, key };
  });
}

/**
 * `409 1005` when an active key of the tenant other than `except` has the name. Two acts on one
 * name wait for each other, so that only one finds it free.
 */
async function refuseTakenName(trx: Trx, tenantId: string, name: string, except?: string) {
  await lockKey(trx, `api-key-name:${tenantId}`);
  const holder = await findActiveKeyNamed(trx, tenantId, name);
  if (holder && holder.id !== except) {
    throw new AppError('conflict', {
      message: `An active key named "${name}" already exists. Choose another name, or revoke that key first.`,
    });
  }
}

/**
 * Renames a key of the tenant (its secret and prefix stay): the name is what people know a
 * client system by. The same rule as at creation: no two active keys share a name.
 */
export async function renameApiKey(
  trx: Trx,
  tenantId: string,
  id: string,
  input: unknown,
): Promise<{ before: ApiKeyView; after: ApiKeyView }> {
  const { name } = validate(NewApiKey, input);
  const before = await getApiKey(trx, tenantId, id);
  await refuseTakenName(trx, tenantId, name, before.id);
  await updateKeyName(trx, tenantId, before.id, name);
  return { before, after: { ...before, name } };
}

function inTransaction<T>(db: Executor, work: (trx: Trx) => Promise<T>): Promise<T> {
  return db.isTransaction ? work(db as Trx) : (db as Db).transaction().execute(work);
}

/** Revokes a key of the tenant; revoking it again answers the first revocation time. */
export async function revokeApiKey(trx: Trx, tenantId: string, id: string): Promise<RevokedApiKey> {
  const row = await findKeyRevocation(trx, tenantId, id);
  if (!row) throw new AppError('notFound', { message: 'API key not found.' });
  if (row.revoked_at) return { id, revoked_at: row.revoked_at };
  const revokedAt = nowIso();
  await markKeyRevoked(trx, tenantId, id, revokedAt);
  return { id, revoked_at: revokedAt };
}

/** The tenant's keys, newest first, revoked ones included; those named like `search` if given. */
export function listApiKeys(
  db: Executor,
  tenantId: string,
  search?: string,
): Promise<ApiKeyView[]> {
  return listKeyViews(db, tenantId, search);
}

/** A key of the tenant; `404 1004` when the tenant has no such key. */
export async function getApiKey(db: Executor, tenantId: string, id: string): Promise<ApiKeyView> {
  const key = await findKeyView(db, tenantId, id);
  if (!key) throw new AppError('notFound', { message: 'API key not found.' });
  return key;
}
