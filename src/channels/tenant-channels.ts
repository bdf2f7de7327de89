/**
 * The channels of a tenant: the five every tenant has, then its own (`tenant_channels`), added in
 * the back-office or on the command line. One rule, `isTenantChannel`, says whether a name is a
 * channel of the tenant, for every endpoint and page that takes one.
 */
import { type Actor, recordAudit } from '../audit-trail/index.js';
import type { Executor, Trx } from '../platform/db.js';
import { AppError } from '../platform/errors.js';
import { nowIso } from '../platform/time.js';
import { validate } from '../platform/validation.js';
import { channels, isChannel } from './channels.js';
import { NewTenantChannel } from './schemas.js';
import {
  findTenantChannelRow,
  findTenantChannelRows,
  insertTenantChannel,
} from './tenant-channels-repository.js';

/** A channel of the tenant: `builtIn` for the five every tenant has. */
export interface TenantChannel {
  code: string;
  name: string;
  builtIn: boolean;
  /** When the tenant added it; null for the five. */
  createdAt: string | null;
}

const builtInNames: Record<(typeof channels)[number], string> = {
  email: 'Email',
  sms: 'SMS',
  push: 'Push',
  phone: 'Phone',
  post: 'Post',
};

/** Every channel of the tenant: the five in their order, then the tenant's own by code. */
export async function tenantChannels(db: Executor, tenantId: string): Promise<TenantChannel[]> {
  const own = await findTenantChannelRows(db, tenantId);
  return [
    ...channels.map((code) => ({ code, name: builtInNames[code], builtIn: true, createdAt: null })),
    ...own.map((row) => ({
      code: row.code,
      name: row.name,
      builtIn: false,
      createdAt: row.created_at,
    })),
  ];
}

/** Whether `code` names a channel of the tenant: one of the five, or one of its own. */
export async function isTenantChannel(
  db: Executor,
  tenantId: string,
  code: string,
): Promise<boolean> {
  if (isChannel(code)) return true;
  return (await findTenantChannelRow(db, tenantId, code)) !== undefined;
}

/**
 * Adds a channel of the tenant's own, and records who did: `400 1001` for a code that is not a
 * lowercase slug or that is one of the five, or a missing name; `409 1005` when the tenant has
 * that code already.
 */
export async function createTenantChannel(
  trx: Trx,
  actor: Actor,
  tenantId: string,
  input: unknown,
): Promise<TenantChannel> {
  const fields = validate(NewTenantChannel, input);
  if (isChannel(fields.code)) {
    throw new AppError('invalidRequest', {
      details: [{ field: 'code', issue: `"${fields.code}" is a channel every tenant has` }],
    });
  }
  const createdAt = nowIso();
  const row = { tenant_id: tenantId, code: fields.code, name: fields.name, created_at: createdAt };
  if (!(await insertTenantChannel(trx, row))) {
    throw new AppError('conflict', {
      message: `A channel with code "${fields.code}" already exists.`,
    });
  }
  await recordAudit(trx, {
    ...actor,
    action: 'channel.created',
    target: row.code,
    details: { name: row.name },
  });
  return { code: row.code, name: row.name, builtIn: false, createdAt };
}
