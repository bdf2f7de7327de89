import type { ProductRow, ProductSummaryRow } from '../../products/index.js';
import type { TemplateSummaryRow } from '../../templates/index.js';
import { badge, time } from '../web/format.js';
import { csrfField, type FieldErrors, formErrors, input, select, textarea } from '../web/forms.js';
import { type Html, html, segment } from '../web/html.js';
import { basePath } from '../web/layout.js';

const productPath = (code: string) => `${basePath}/products/${segment(code)}`;

export function productList(products: ProductSummaryRow[], mayCreate: boolean): Html {
  return html`<hgroup><h1>Products</h1><p>The business areas that own your consent texts: every template belongs to one.</p></hgroup>
${mayCreate ? html`<p><a href="${basePath}/products/new" role="button">New product</a></p>` : ''}
${
  products.length === 0
    ? html`<p>No product yet. The first template made goes to a product "General", which you can rename.</p>`
    : html`<div class="table-scroll" tabindex="0" role="region" aria-label="Products"><table>
<thead><tr><th scope="col">Code</th><th scope="col">Name</th><th scope="col">Templates</th><th scope="col">Status</th></tr></thead>
<tbody>
${products.map(
  (p) => html`<tr>
<td><a href="${productPath(p.code)}">${p.code}</a></td>
<td>${p.name}</td>
<td><a href="${basePath}/templates?product=${encodeURIComponent(p.code)}">${p.template_count}</a></td>
<td>${p.archived_at ? badge('archived') : badge('active')}</td>
</tr>`,
)}
</tbody></table></div>`
}`;
}

interface FormModel {
  csrfToken: string;
  values: { code: string; name: string; description: string };
  errors: string[];
  fieldErrors: FieldErrors;
}

export function newProductForm(o: FormModel): Html {
  return html`<nav aria-label="breadcrumb"><ul><li><a href="${basePath}/products">Products</a></li><li>New</li></ul></nav>
<h1>New product</h1>
${formErrors(o.errors)}
<form method="post" action="${basePath}/products" novalidate>
${csrfField(o.csrfToken)}
${input({ name: 'code', label: 'Code', value: o.values.code, required: true, maxlength: 64, hint: 'A short, fixed name such as retail_banking: letters, digits, _ . and -. It cannot be changed later.', error: o.fieldErrors.code })}
${fields(o)}
<button type="submit">Create product</button>
</form>`;
}

function fields(o: FormModel): Html {
  return html`${input({ name: 'name', label: 'Name', value: o.values.name, required: true, maxlength: 200, error: o.fieldErrors.name })}
${textarea({ name: 'description', label: 'Description (optional)', value: o.values.description, rows: 3, maxlength: 2000, error: o.fieldErrors.description })}`;
}

export function productPage(
  product: ProductRow,
  o: FormModel & { templates: readonly TemplateSummaryRow[]; zone: string; mayEdit: boolean },
): Html {
  const path = productPath(product.code);
  return html`<nav aria-label="breadcrumb"><ul><li><a href="${basePath}/products">Products</a></li><li>${product.code}</li></ul></nav>
<hgroup><h1>${product.name}</h1><p><span class="mono">${product.code}</span> ${product.archived_at ? badge('archived') : badge('active')}</p></hgroup>
${product.description ? html`<p>${product.description}</p>` : ''}
<dl class="facts">
<dt>Created</dt><dd>${time(product.created_at, o.zone)}</dd>
${product.archived_at ? html`<dt>Archived</dt><dd>${time(product.archived_at, o.zone)}: it takes no new template; its templates go on working.</dd>` : ''}
</dl>
<h2>Templates</h2>
${
  o.templates.length === 0
    ? html`<p>No template in this product yet.</p>`
    : html`<div class="table-scroll"><table>
<thead><tr><th scope="col">Code</th><th scope="col">Name</th><th scope="col">Latest version</th><th scope="col">Status</th></tr></thead>
<tbody>
${o.templates.map(
  (t) => html`<tr>
<td><a href="${basePath}/templates/${segment(t.code)}">${t.code}</a></td>
<td class="wrap">${t.name}</td>
<td>${t.latest_version === null ? 'none published' : html`${t.latest_version} (tag <span class="mono">${t.latest_tag}</span>)`}</td>
<td>${t.archived_at ? badge('archived') : badge('active')}</td>
</tr>`,
)}
</tbody></table></div>`
}
${
  o.mayEdit
    ? html`<h2>Name and description</h2>
${formErrors(o.errors)}
<form method="post" action="${path}" novalidate>
${csrfField(o.csrfToken)}
${fields(o)}
<button type="submit">Save</button>
</form>
<form method="post" action="${path}/${product.archived_at ? 'restore' : 'archive'}">
${csrfField(o.csrfToken)}
<button type="submit" class="secondary">${product.archived_at ? 'Restore this product' : 'Archive this product'}</button>
</form>`
    : ''
}`;
}

/**
 * A filter of a list by product, sent as `?product=`; "All products" when empty. A tenant with
 * one product has nothing to choose.
 */
export function productFilter(
  action: string,
  products: ReadonlyArray<{ code: string; name: string }>,
  product: string,
): Html {
  if (products.length < 2) return html``;
  return html`<form method="get" action="${action}" class="filters">
${select({ name: 'product', label: 'Product', value: product, options: [['', 'All products'], ...products.map((p) => [p.code, p.name] as const)] })}
<button type="submit" class="secondary">Show</button>
</form>`;
}
