import type { Executor } from '../platform/db.js';
import { containsText, startsWithText } from '../platform/like.js';
import type { ApiKeyView } from './schemas.js';
import type { ApiKeyRow } from './table.js';

/** The tenant's active (not revoked) key of that name, if any. */
export function findActiveKeyNamed(
  db: Executor,
  tenantId: string,
  name: string,
): Promise<{ id: string } | undefined> {
  return db
    .selectFrom('api_keys')
    .select('id')
    .where('tenant_id', '=', tenantId)
    .where('name', '=', name)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
}

export async function insertApiKey(db: Executor, row: ApiKeyRow): Promise<void> {
  await db.insertInto('api_keys').values(row).execute();
}

/** The tenant's key with that id (its revocation time only), if any. */
export function findKeyRevocation(
  db: Executor,
  tenantId: string,
  id: string,
): Promise<{ id: string; revoked_at: string | null } | undefined> {
  return db
    .selectFrom('api_keys')
    .select(['id', 'revoked_at'])
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .executeTakeFirst();
}

export async function markKeyRevoked(
  db: Executor,
  tenantId: string,
  id: string,
  revokedAt: string,
): Promise<void> {
  await db
    .updateTable('api_keys')
    .set({ revoked_at: revokedAt })
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .execute();
}

const viewColumns = [
  'id',
  'name',
  'prefix',
  'last_four',
  'created_at',
  'last_used_at',
  'revoked_at',
] as const;

/**
 * The tenant's keys, newest first, revoked ones included; when `search` is given, only those
 * whose name contains it, whose prefix starts with it (`csk_` may be left out), in any case,
 * or whose last four characters are exactly it (`%` and `_` match only themselves).
 */
export function listKeyViews(
  db: Executor,
  tenantId: string,
  search?: string,
): Promise<ApiKeyView[]> {
  let query = db.selectFrom('api_keys').select(viewColumns).where('tenant_id', '=', tenantId);
  if (search) {
    query = query.where((eb) =>
      eb.or([
        containsText('name', search),
        startsWithText('prefix', search),
        startsWithText('prefix', `csk_${search}`),
        eb('last_four', '=', search),
      ]),
    );
  }
  return query.orderBy('created_at', 'desc').orderBy('id', 'desc').execute();
}

export function findKeyView(
  db: Executor,
  tenantId: string,
  id: string,
): Promise<ApiKeyView | undefined> {
  return db
    .selectFrom('api_keys')
    .select(viewColumns)
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** What the key check needs of the active key with this prefix, when its tenant is enabled. */
export function findActiveKeyByPrefix(
  db: Executor,
  prefix: string,
): Promise<
  { tenant_id: string; id: string; key_hash: string; last_used_at: string | null } | undefined
> {
  return db
    .selectFrom('api_keys')
    .innerJoin('tenants', 'tenants.id', 'api_keys.tenant_id')
    .select(['api_keys.tenant_id', 'api_keys.id', 'api_keys.key_hash', 'api_keys.last_used_at'])
    .where('api_keys.prefix', '=', prefix)
    .where('api_keys.revoked_at', 'is', null)
    .where('tenants.disabled_at', 'is', null)
    .executeTakeFirst();
}

export async function updateKeyLastUsed(
  db: Executor,
  tenantId: string,
  id: string,
  lastUsedAt: string,
): Promise<void> {
  await db
    .updateTable('api_keys')
    .set({ last_used_at: lastUsedAt })
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .execute();
}

export async function updateKeyName(
  db: Executor,
  tenantId: string,
  id: string,
  name: string,
): Promise<void> {
  await db
    .updateTable('api_keys')
    .set({ name })
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .execute();
}
