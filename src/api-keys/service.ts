import type { Db, Executor } from '../platform/db.js';
import { AppError } from '../platform/errors.js';
import { sha256Hex } from '../platform/hashing.js';
import { newId } from '../platform/ids.js';
import { nowIso } from '../platform/time.js';
import { validate } from '../platform/validation.js';
import { generateKey } from './keys.js';
import { type ApiKeyView, type CreatedApiKey, NewApiKey, type RevokedApiKey } from './schemas.js';

export async function createApiKey(
  db: Executor,
  tenantId: string,
  input: unknown,
): Promise<CreatedApiKey> {
  const { name } = validate(NewApiKey, input);
  const { key, prefix } = generateKey();
  const id = newId();
  await db
    .insertInto('api_keys')
    .values({
      tenant_id: tenantId,
      id,
      name,
      prefix,
      key_hash: sha256Hex(key),
      created_at: nowIso(),
      last_used_at: null,
      revoked_at: null,
    })
    .execute();
  return { id, name, prefix, key };
}

/** Revokes a key of the tenant; revoking it again answers the first revocation time. */
export async function revokeApiKey(db: Db, tenantId: string, id: string): Promise<RevokedApiKey> {
  return db.transaction().execute(async (trx) => {
    const row = await trx
      .selectFrom('api_keys')
      .select(['id', 'revoked_at'])
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .executeTakeFirst();
    if (!row) throw new AppError('notFound', { message: 'API key not found.' });
    if (row.revoked_at) return { id, revoked_at: row.revoked_at };
    const revokedAt = nowIso();
    await trx
      .updateTable('api_keys')
      .set({ revoked_at: revokedAt })
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .execute();
    return { id, revoked_at: revokedAt };
  });
}

/** The tenant's keys, newest first, revoked ones included. */
export function listApiKeys(db: Executor, tenantId: string): Promise<ApiKeyView[]> {
  return db
    .selectFrom('api_keys')
    .select(['id', 'name', 'prefix', 'created_at', 'last_used_at', 'revoked_at'])
    .where('tenant_id', '=', tenantId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
}

/** A key of the tenant; `404 1004` when the tenant has no such key. */
export async function getApiKey(db: Executor, tenantId: string, id: string): Promise<ApiKeyView> {
  const key = await db
    .selectFrom('api_keys')
    .select(['id', 'name', 'prefix', 'created_at', 'last_used_at', 'revoked_at'])
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .executeTakeFirst();
  if (!key) throw new AppError('notFound', { message: 'API key not found.' });
  return key;
}
