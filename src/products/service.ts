import { LRUCache } from 'lru-cache';
import { type Actor, recordAudit } from '../audit-trail/index.js';
import type { Executor, Trx } from '../platform/db.js';
import { AppError } from '../platform/errors.js';
import { newId } from '../platform/ids.js';
import { nowIso } from '../platform/time.js';
import { validate } from '../platform/validation.js';
import {
  anyProductExists,
  findFirstActiveProduct,
  findProductByCode,
  findProductById,
  insertProduct,
  listProductRows,
  type ProductSummaryRow,
  updateProduct,
} from './repository.js';
import { NewProduct, ProductChanges } from './schemas.js';
import type { ProductRow } from './table.js';

export type { ProductSummaryRow };

/** The product a tenant's first template goes to when no product is named. */
const general = { code: 'general', name: 'General', description: '' };

/** The tenant's products, by name, each with its number of templates. */
export function listProducts(db: Executor, tenantId: string): Promise<ProductSummaryRow[]> {
  return listProductRows(db, tenantId);
}

/** A product by code; `404 1004` when the tenant has none of that code. */
export async function getProduct(
  db: Executor,
  tenantId: string,
  code: string,
): Promise<ProductRow> {
  const product = await findProductByCode(db, tenantId, code);
  if (!product) throw new AppError('notFound', { message: 'No such product.' });
  return product;
}

/** What names a product in the records that refer to it. */
export interface ProductKey {
  id: string;
  code: string;
}

/** By store handle, then by tenant and code: the products read so far. */
const knownProducts = new WeakMap<Executor, LRUCache<string, ProductKey>>();

/**
 * A product's id by its code, as a channel change names it; `404 1004` when the tenant has none
 * of that code. Kept once read, for each store handle: a product is never deleted, and neither
 * its id nor its code ever changes (archiving changes neither), so a kept one is never stale. A
 * code the tenant does not have is read again each time, so a product just made, on this
 * instance or another, is found at once. It spares each channel change a round trip to the store
 * before its write.
 */
export async function productByCode(
  db: Executor,
  tenantId: string,
  code: string,
): Promise<ProductKey> {
  let known = knownProducts.get(db);
  if (!known) {
    known = new LRUCache({ max: 10_000 });
    knownProducts.set(db, known);
  }
  const name = `${tenantId}\u0000${code}`;
  const kept = known.get(name);
  if (kept) return kept;
  const product = await getProduct(db, tenantId, code);
  const key = { id: product.id, code: product.code };
  known.set(name, key);
  return key;
}

export function findProduct(
  db: Executor,
  tenantId: string,
  id: string,
): Promise<ProductRow | undefined> {
  return findProductById(db, tenantId, id);
}

/**
 * The product a new template goes to: the one named (`400 1001` when there is none of that
 * code, or it is archived), or else the tenant's first active product; a tenant with no product
 * at all gets `general` ("General").
 */
export async function productForNewTemplate(
  db: Executor,
  tenantId: string,
  code: string | undefined,
): Promise<ProductRow> {
  if (code !== undefined) {
    const named = await findProductByCode(db, tenantId, code);
    const issue = !named
      ? 'names no product of this tenant'
      : named.archived_at
        ? 'is archived'
        : '';
    if (!named || issue) {
      throw new AppError('invalidRequest', { details: [{ field: 'product', issue }] });
    }
    return named;
  }
  const first = await findFirstActiveProduct(db, tenantId);
  if (first) return first;
  if (await anyProductExists(db, tenantId)) {
    throw new AppError('invalidRequest', {
      details: [
        { field: 'product', issue: 'is required: every product of this tenant is archived' },
      ],
    });
  }
  const now = nowIso();
  // Two first templates at once make one `general`: the second insert does nothing.
  await insertProduct(db, {
    tenant_id: tenantId,
    id: newId(),
    ...general,
    archived_at: null,
    created_at: now,
    updated_at: now,
  });
  return getProduct(db, tenantId, general.code);
}

/** Creates a product, and records who did; `409 1005` when the code is taken. */
export async function createProduct(
  trx: Trx,
  actor: Actor,
  tenantId: string,
  input: unknown,
): Promise<ProductRow> {
  const fields = validate(NewProduct, input);
  const now = nowIso();
  const row: ProductRow = {
    tenant_id: tenantId,
    id: newId(),
    code: fields.code,
    name: fields.name,
    description: fields.description ?? '',
    archived_at: null,
    created_at: now,
    updated_at: now,
  };
  if (!(await insertProduct(trx, row))) {
    throw new AppError('conflict', {
      message: `A product with code "${fields.code}" already exists.`,
    });
  }
  await recordAudit(trx, {
    ...actor,
    action: 'product.created',
    target: row.code,
    details: { name: row.name },
  });
  return row;
}

/** Renames a product or changes its description (its code stays), and records who did. */
export async function changeProduct(
  trx: Trx,
  actor: Actor,
  tenantId: string,
  code: string,
  input: unknown,
): Promise<ProductRow> {
  const product = await getProduct(trx, tenantId, code);
  const fields = validate(ProductChanges, input);
  const changes = {
    name: fields.name,
    description: fields.description ?? '',
    updated_at: nowIso(),
  };
  await updateProduct(trx, tenantId, product.id, changes);
  await recordAudit(trx, {
    ...actor,
    action: 'product.changed',
    target: product.code,
    details: { name: { from: product.name, to: changes.name } },
  });
  return { ...product, ...changes };
}

/**
 * Archives a product (it takes no new template; its templates go on working and stay listed)
 * or restores it, and records who did.
 */
export async function setProductArchived(
  trx: Trx,
  actor: Actor,
  tenantId: string,
  code: string,
  archived: boolean,
): Promise<ProductRow> {
  const product = await getProduct(trx, tenantId, code);
  if ((product.archived_at !== null) === archived) return product;
  const now = nowIso();
  const changes = { archived_at: archived ? now : null, updated_at: now };
  await updateProduct(trx, tenantId, product.id, changes);
  await recordAudit(trx, {
    ...actor,
    action: archived ? 'product.archived' : 'product.restored',
    target: product.code,
  });
  return { ...product, ...changes };
}
