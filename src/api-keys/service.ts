import type { Db, Executor } from '../platform/db.js';
import { AppError } from '../platform/errors.js';
import { digestsEqual, sha256Hex } from '../platform/hashing.js';
import { newId } from '../platform/ids.js';
import { nowIso } from '../platform/time.js';
import { validate } from '../platform/validation.js';
import { generateKey, prefixOf } from './keys.js';
import { type ApiCaller, type CreatedApiKey, NewApiKey, type RevokedApiKey } from './schemas.js';

/** `last_used_at` is refreshed at most this often, so reads do not each cost a write. */
const lastUsedResolutionMs = 60_000;

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

/**
 * The caller a presented key stands for, or undefined when the key is missing, malformed,
 * unknown, revoked, or its tenant is disabled.
 */
export async function authenticate(
  db: Db,
  presented: string | undefined,
): Promise<ApiCaller | undefined> {
  if (!presented) return undefined;
  const prefix = prefixOf(presented);
  if (!prefix) return undefined;
  const row = await db
    .selectFrom('api_keys')
    .innerJoin('tenants', 'tenants.id', 'api_keys.tenant_id')
    .select(['api_keys.tenant_id', 'api_keys.id', 'api_keys.key_hash', 'api_keys.last_used_at'])
    .where('api_keys.prefix', '=', prefix)
    .where('api_keys.revoked_at', 'is', null)
    .where('tenants.disabled_at', 'is', null)
    .executeTakeFirst();
  if (!row || !digestsEqual(sha256Hex(presented), row.key_hash)) return undefined;
  const now = Date.now();
  if (!row.last_used_at || now - Date.parse(row.last_used_at) >= lastUsedResolutionMs) {
    await db
      .updateTable('api_keys')
      .set({ last_used_at: new Date(now).toISOString() })
      .where('tenant_id', '=', row.tenant_id)
      .where('id', '=', row.id)
      .execute();
  }
  return { tenantId: row.tenant_id, apiKeyId: row.id };
}
