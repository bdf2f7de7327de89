import type { Executor } from '../platform/db.js';
import type { ScimTokenRow } from './table.js';

export async function insertScimToken(db: Executor, row: ScimTokenRow): Promise<void> {
  await db.insertInto('scim_tokens').values(row).execute();
}

/** The tenant's tokens, newest first, revoked ones included. */
export function listScimTokenRows(db: Executor, tenantId: string): Promise<ScimTokenRow[]> {
  return db
    .selectFrom('scim_tokens')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
}

export function findScimTokenRow(
  db: Executor,
  tenantId: string,
  id: string,
): Promise<ScimTokenRow | undefined> {
  return db
    .selectFrom('scim_tokens')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .executeTakeFirst();
}

export async function markScimTokenRevoked(
  db: Executor,
  tenantId: string,
  id: string,
  at: string,
): Promise<void> {
  await db
    .updateTable('scim_tokens')
    .set({ revoked_at: at })
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .where('revoked_at', 'is', null)
    .execute();
}

/** The token with this hash while it is not revoked and its tenant is not disabled. */
export function findActiveScimToken(
  db: Executor,
  tokenHash: string,
): Promise<
  | Pick<ScimTokenRow, 'id' | 'tenant_id' | 'name' | 'prefix' | 'token_hash' | 'last_used_at'>
  | undefined
> {
  return db
    .selectFrom('scim_tokens')
    .innerJoin('tenants', 'tenants.id', 'scim_tokens.tenant_id')
    .select([
      'scim_tokens.id',
      'scim_tokens.tenant_id',
      'scim_tokens.name',
      'scim_tokens.prefix',
      'scim_tokens.token_hash',
      'scim_tokens.last_used_at',
    ])
    .where('scim_tokens.token_hash', '=', tokenHash)
    .where('scim_tokens.revoked_at', 'is', null)
    .where('tenants.disabled_at', 'is', null)
    .executeTakeFirst();
}

export async function updateScimTokenLastUsed(db: Executor, id: string, at: string): Promise<void> {
  await db.updateTable('scim_tokens').set({ last_used_at: at }).where('id', '=', id).execute();
}
