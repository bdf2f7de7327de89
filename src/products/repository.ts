import type { Executor } from '../platform/db.js';
import type { ProductRow, ProductsTable } from './table.js';

/** A product with the number of its templates, for lists. */
export type ProductSummaryRow = ProductRow & { template_count: number };

export async function listProductRows(
  db: Executor,
  tenantId: string,
): Promise<ProductSummaryRow[]> {
  const counts = db
    .selectFrom('templates')
    .select(['product_id', (eb) => eb.fn.countAll<number | string>().as('count')])
    .where('tenant_id', '=', tenantId)
    .groupBy('product_id')
    .as('counts');
  const rows = await db
    .selectFrom('products as p')
    .leftJoin(counts, 'counts.product_id', 'p.id')
    .selectAll('p')
    .select('counts.count as template_count')
    .where('p.tenant_id', '=', tenantId)
    .orderBy('p.name')
    .orderBy('p.code')
    .execute();
  return rows.map((row) => ({ ...row, template_count: Number(row.template_count ?? 0) }));
}

export function findProductByCode(
  db: Executor,
  tenantId: string,
  code: string,
): Promise<ProductRow | undefined> {
  return db
    .selectFrom('products')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('code', '=', code)
    .executeTakeFirst();
}

export function findProductById(
  db: Executor,
  tenantId: string,
  id: string,
): Promise<ProductRow | undefined> {
  return db
    .selectFrom('products')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** The tenant's first active product, by when it was made. */
export function findFirstActiveProduct(
  db: Executor,
  tenantId: string,
): Promise<ProductRow | undefined> {
  return db
    .selectFrom('products')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('archived_at', 'is', null)
    .orderBy('created_at')
    .orderBy('id')
    .limit(1)
    .executeTakeFirst();
}

export async function anyProductExists(db: Executor, tenantId: string): Promise<boolean> {
  const row = await db
    .selectFrom('products')
    .select('id')
    .where('tenant_id', '=', tenantId)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/** Inserts the product unless the tenant has one of that code; true when it was inserted. */
export async function insertProduct(db: Executor, row: ProductRow): Promise<boolean> {
  const result = await db
    .insertInto('products')
    .values(row)
    .onConflict((oc) => oc.columns(['tenant_id', 'code']).doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) === 1;
}

export async function updateProduct(
  db: Executor,
  tenantId: string,
  id: string,
  changes: Partial<Pick<ProductsTable, 'name' | 'description' | 'archived_at' | 'updated_at'>>,
): Promise<void> {
  await db
    .updateTable('products')
    .set(changes)
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .execute();
}
