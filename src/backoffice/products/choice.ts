import type { Executor } from '../../platform/db.js';
import { listProducts, type ProductSummaryRow } from '../../products/index.js';
import { queryOf } from '../web/forms.js';

/**
 * The tenant's products, and the one a list is filtered by (`?product=<code>`), if any: a code
 * that names no product filters nothing, as "All products" does.
 */
export async function productChoice(
  db: Executor,
  tenantId: string,
  query: unknown,
): Promise<{ products: ProductSummaryRow[]; product: ProductSummaryRow | undefined }> {
  const products = await listProducts(db, tenantId);
  const code = queryOf(query, 'product');
  return { products, product: products.find((p) => p.code === code) };
}
