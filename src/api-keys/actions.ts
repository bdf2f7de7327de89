import { type Actor, recordAudit } from '../audit-trail/index.js';
import type { Executor, Trx } from '../platform/db.js';
import type { ApiCaller, ApiKeyView, CreatedApiKey, RevokedApiKey } from './schemas.js';
import { createApiKey, getApiKey, renameApiKey, revokeApiKey } from './service.js';

/**
 * Who acts through an API key, as the audit log names them: the tenant, by the key's prefix and
 * its name as it is now (a key is renamed, its prefix never changes), from the request's address.
 */
export async function apiKeyActor(
  db: Executor,
  caller: ApiCaller,
  from: { ip: string; userAgent: string | null },
): Promise<Actor> {
  const key = await getApiKey(db, caller.tenantId, caller.apiKeyId);
  return {
    tenantId: caller.tenantId,
    actorKind: 'tenant',
    actor: `API key ${key.prefix}`,
    actorName: key.name,
    ip: from.ip,
    userAgent: from.userAgent,
  };
}

/** Creates a key for the tenant (see `createApiKey`) and records who did. */
export async function createApiKeyAs(
  trx: Trx,
  actor: Actor,
  tenantId: string,
  input: unknown,
): Promise<CreatedApiKey> {
  const key = await createApiKey(trx, tenantId, input);
  await recordAudit(trx, {
    ...actor,
    action: 'api_key.created',
    target: key.name,
    details: { id: key.id, prefix: key.prefix },
  });
  return key;
}

/** Revokes a key of the tenant (see `revokeApiKey`) and records who did. */
export async function revokeApiKeyAs(
  trx: Trx,
  actor: Actor,
  tenantId: string,
  id: string,
): Promise<RevokedApiKey> {
  const key = await getApiKey(trx, tenantId, id);
  const revoked = await revokeApiKey(trx, tenantId, key.id);
  await recordAudit(trx, {
    ...actor,
    action: 'api_key.revoked',
    target: key.name,
    details: { id: key.id, prefix: key.prefix, revoked_at: revoked.revoked_at },
  });
  return revoked;
}

/** Renames a key of the tenant (see `renameApiKey`) and records who did. */
export async function renameApiKeyAs(
  trx: Trx,
  actor: Actor,
  tenantId: string,
  id: string,
  input: unknown,
): Promise<ApiKeyView> {
  const { before, after } = await renameApiKey(trx, tenantId, id, input);
  await recordAudit(trx, {
    ...actor,
    action: 'api_key.renamed',
    target: after.name,
    details: { id: after.id, prefix: after.prefix, from: before.name, to: after.name },
  });
  return after;
}
