import stringify from 'safe-stable-stringify';
import type { Executor } from '../platform/db.js';
import { AppError } from '../platform/errors.js';
import { sha256Hex } from '../platform/hashing.js';
import { listProducts, type ProductKey, productByCode } from '../products/index.js';
import type { ControlContext } from '../record-kinds/index.js';
import type { SubjectVault } from '../subjects/index.js';
import { findLiveSubjectRow, personalReader } from '../subjects/index.js';
import type { ChannelChangeOutcome, ChannelChangeWriter, ChannelState } from './channels.js';
import { findSubjectChangeRows, findSubjectStates } from './repository.js';
import { isTenantChannel, tenantChannels } from './tenant-channels.js';

/** Who sent a channel change, as every control's change keeps it. */
export type ChannelContext = ControlContext;

/** Which channel of which customer and product a change is for. */
export interface ChannelTarget {
  customerId: string;
  productCode: string;
  channel: string;
}

/**
 * A product and a channel of the tenant's, as a change or a question names them: `404 1004` for
 * either unknown. The product is kept once found (`productByCode`), so neither reads the store
 * for it again.
 */
export async function productChannel(
  db: Executor,
  tenantId: string,
  productCode: string,
  channel: string,
): Promise<{ product: ProductKey; channel: string }> {
  const product = await productByCode(db, tenantId, productCode);
  if (!(await isTenantChannel(db, tenantId, channel))) {
    throw new AppError('notFound', { message: 'No such channel.' });
  }
  return { product, channel };
}

/**
 * Blocks or allows a customer's channel for a product, the API's use case: the product and the
 * channel are checked here (`404 1004` for either unknown), and the writer records the change
 * under the customer's lock, or nothing when the channel already has that state. With an
 * `Idempotency-Key`, the answer is kept in the change's own transaction, and a retry within the
 * window is `replayed`.
 */
export async function setChannel(
  db: Executor,
  writer: ChannelChangeWriter,
  vault: SubjectVault,
  context: ChannelContext,
  target: ChannelTarget,
  blocked: boolean,
  idempotencyKey?: string,
): Promise<ChannelChangeOutcome> {
  const { product, channel } = await productChannel(
    db,
    context.tenantId,
    target.productCode,
    target.channel,
  );
  return writer.write({
    ...context,
    customerId: target.customerId,
    lookup: vault.lookup(context.tenantId, target.customerId),
    target: { product_id: product.id, product_code: product.code, channel },
    blocked,
    requestHash: channelRequestHash(target, blocked),
    ...(idempotencyKey === undefined ? {} : { idempotencyKey }),
  });
}

/**
 * The hash an idempotency key is checked against: the request's method, path and body, so that
 * a key first used for a decision (whose hash is of its body alone) or for another channel is
 * refused here, and the other way round.
 */
function channelRequestHash(target: ChannelTarget, blocked: boolean): string {
  const { customerId, productCode, channel } = target;
  const path = `/api/v1/customers/${encodeURIComponent(customerId)}/channels/${productCode}/${channel}`;
  return sha256Hex(stringify({ method: 'PUT', path, body: { blocked } }) ?? '');
}

/**
 * Every product of the tenant times every channel of the tenant, by product code, then the five
 * channels and the tenant's own by code: blocked or not, and since when. A customer the tenant
 * never recorded has every channel allowed.
 */
export async function listChannels(
  db: Executor,
  vault: SubjectVault,
  tenantId: string,
  customerId: string,
): Promise<ChannelState[]> {
  const products = (await listProducts(db, tenantId))
    .map((p) => ({ id: p.id, code: p.code }))
    .sort((a, b) => (a.code < b.code ? -1 : a.code > b.code ? 1 : 0));
  const codes = (await tenantChannels(db, tenantId)).map((c) => c.code);
  const subject = await findLiveSubjectRow(db, tenantId, vault.lookup(tenantId, customerId));
  const stored = subject ? await findSubjectStates(db, tenantId, subject.id) : [];
  const byKey = new Map(stored.map((s) => [`${s.product_id}\u0000${s.channel}`, s]));
  return products.flatMap((product) =>
    codes.map((channel): ChannelState => {
      const state = byKey.get(`${product.id}\u0000${channel}`);
      return {
        product_code: product.code,
        channel,
        blocked: Number(state?.blocked ?? 0) === 1,
        since: state?.since ?? null,
        record_id: state?.change_id ?? null,
      };
    }),
  );
}

/** One of a customer's changes as their history shows it, its evidence opened. */
export interface ChannelChangeEntry {
  id: string;
  productCode: string;
  channel: string;
  blocked: boolean;
  changedAt: string;
  /** Who made it: an API key or a back-office user (the other null). */
  apiKeyId: string | null;
  userId: string | null;
  ip: string | null;
  userAgent: string | null;
}

/**
 * A customer's channel changes, newest first (at most `limit`), with their address and user
 * agent opened; none for a customer the tenant has no record of.
 */
export async function customerChannelChanges(
  db: Executor,
  vault: SubjectVault,
  tenantId: string,
  customerId: string,
  limit: number,
): Promise<ChannelChangeEntry[]> {
  const subject = await findLiveSubjectRow(db, tenantId, vault.lookup(tenantId, customerId));
  if (!subject) return [];
  const rows = await findSubjectChangeRows(db, tenantId, subject.id, limit);
  const opened = await personalReader(db, vault, tenantId)(rows);
  return rows.map((row, i) => ({
    id: row.id,
    productCode: row.product_code,
    channel: row.channel,
    blocked: Number(row.blocked) === 1,
    changedAt: row.changed_at,
    apiKeyId: row.api_key_id,
    userId: row.user_id,
    ip: opened[i]?.personal?.ip ?? null,
    userAgent: opened[i]?.personal?.user_agent ?? null,
  }));
}
