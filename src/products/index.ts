/** The public surface of `src/products/`: what other folders may import (its README says what the folder is for). */
export { productCodePattern } from './schemas.js';
export {
  changeProduct,
  createProduct,
  findProduct,
  getProduct,
  listProducts,
  type ProductKey,
  type ProductSummaryRow,
  productByCode,
  productForNewTemplate,
  setProductArchived,
} from './service.js';
export type { ProductRow } from './table.js';
