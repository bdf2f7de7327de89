import { type Actor, recordAudit } from '../audit-trail/index.js';
import type { Trx } from '../platform/db.js';
import type { ApiKeyView, CreatedApiKey, RevokedApiKey } from './schemas.js';
import { createApiKey, getApiKey, renameApiKey, revokeApiKey } from './service.js';

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
