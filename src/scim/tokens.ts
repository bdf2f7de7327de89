import { randomBytes } from 'node:crypto';
import { type Actor, recordAudit } from '../audit-trail/index.js';
import type { Executor, Trx } from '../platform/db.js';
import { AppError } from '../platform/errors.js';
import { sha256Hex } from '../platform/hashing.js';
import { newId } from '../platform/ids.js';
import { nowIso } from '../platform/time.js';
import { validate } from '../platform/validation.js';
import {
  type CreatedScimToken,
  NewScimToken,
  type ScimCaller,
  type ScimTokenView,
} from './schemas.js';
import type { ScimTokenRow } from './table.js';
import {
  findActiveScimToken,
  findScimTokenRow,
  insertScimToken,
  listScimTokenRows,
  markScimTokenRevoked,
  updateScimTokenLastUsed,
} from './tokens-repository.js';

/**
 * Token format: `scim_` + 43 base64url characters (256 random bits). As for API keys, a long
 * random token needs no slow hash: a SHA-256 of the whole token is kept, and a token is found by
 * it (whoever times the look-up learns nothing of a token, since nobody chooses a hash).
 */
const tokenPattern = /^scim_[A-Za-z0-9_-]{43}$/;
/** What the back-office and the audit log show of a token: `scim_` and the next 8 characters. */
const prefixLength = 'scim_'.length + 8;
/** `last_used_at` is written at most this often per token, so reads do not each cost a write. */
const lastUsedResolutionMs = 60_000;

function view(row: ScimTokenRow): ScimTokenView {
  return {
    id: row.id,
    name: row.name,
    prefix: row.prefix,
    createdAt: row.created_at,
    createdBy: row.created_by,
    lastUsedAt: row.last_used_at,
    revokedAt: row.revoked_at,
  };
}

/** Makes a token for the tenant, shown this once; the audit entry names its prefix. */
export async function createScimTokenAs(
  trx: Trx,
  actor: Actor,
  tenantId: string,
  input: unknown,
): Promise<CreatedScimToken> {
  const { name } = validate(NewScimToken, input);
  const token = `scim_${randomBytes(32).toString('base64url')}`;
  const row: ScimTokenRow = {
    id: newId(),
    tenant_id: tenantId,
    name,
    prefix: token.slice(0, prefixLength),
    token_hash: sha256Hex(token),
    created_at: nowIso(),
    created_by: actor.actor,
    last_used_at: null,
    revoked_at: null,
  };
  await insertScimToken(trx, row);
  await recordAudit(trx, {
    ...actor,
    tenantId,
    action: 'scim_token.created',
    target: name,
    details: { id: row.id, prefix: row.prefix },
  });
  return { id: row.id, name, prefix: row.prefix, token };
}

/** Revokes a token of the tenant: the next request with it is refused. Revoking twice is one. */
export async function revokeScimTokenAs(
  trx: Trx,
  actor: Actor,
  tenantId: string,
  id: string,
): Promise<ScimTokenView> {
  const row = await findScimTokenRow(trx, tenantId, id);
  if (!row) throw new AppError('notFound', { message: 'No such SCIM token.' });
  if (row.revoked_at) return view(row);
  const at = nowIso();
  await markScimTokenRevoked(trx, tenantId, id, at);
  await recordAudit(trx, {
    ...actor,
    tenantId,
    action: 'scim_token.revoked',
    target: row.name,
    details: { id: row.id, prefix: row.prefix },
  });
  return view({ ...row, revoked_at: at });
}

export async function listScimTokens(db: Executor, tenantId: string): Promise<ScimTokenView[]> {
  return (await listScimTokenRows(db, tenantId)).map(view);
}

export async function getScimToken(
  db: Executor,
  tenantId: string,
  id: string,
): Promise<ScimTokenView> {
  const row = await findScimTokenRow(db, tenantId, id);
  if (!row) throw new AppError('notFound', { message: 'No such SCIM token.' });
  return view(row);
}

/**
 * The caller a presented token stands for, or undefined when it is missing, malformed, unknown,
 * revoked or its tenant's disabled. Read from the store on every request, so a revocation counts
 * from the next one. `last_used_at` is bookkeeping: written beside the request, at most once a
 * minute, and a store that refuses it costs the request nothing (`warn` is told).
 */
export async function scimCallerOf(
  db: Executor,
  presented: string | undefined,
  warn: (error: unknown) => void,
): Promise<ScimCaller | undefined> {
  if (presented === undefined || !tokenPattern.test(presented)) return undefined;
  const row = await findActiveScimToken(db, sha256Hex(presented));
  if (!row) return undefined;
  const now = Date.now();
  if (row.last_used_at === null || now - Date.parse(row.last_used_at) >= lastUsedResolutionMs) {
    updateScimTokenLastUsed(db, row.id, new Date(now).toISOString()).catch(warn);
  }
  return { tenantId: row.tenant_id, tokenId: row.id, prefix: row.prefix, name: row.name };
}

/**
 * Who acts through a SCIM token, as the audit log names them: the tenant (the audit log's
 * closed set of kinds has no kind for a machine; API keys are filed the same way), by the
 * token's prefix, with the token's name, from the request's address.
 */
export function scimActor(
  caller: ScimCaller,
  from: { ip: string; userAgent: string | null },
): Actor {
  return {
    tenantId: caller.tenantId,
    actorKind: 'tenant',
    actor: `scim:${caller.prefix}`,
    actorName: caller.name,
    ip: from.ip,
    userAgent: from.userAgent,
  };
}
