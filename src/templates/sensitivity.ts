import { type Actor, recordAudit } from '../audit-trail/index.js';
import type { Trx } from '../platform/db.js';
import { AppError } from '../platform/errors.js';
import { setTemplateDataCategories } from './lifecycle-repository.js';
import { lockPublishes } from './service.js';
import type { TemplateRow } from './table.js';

/**
 * The sensitive data of PDPA section 26, by code: a template covering any needs explicit
 * consent (docs/pdpa.md). `other` stands for data the PDPC prescribes as affecting a person in
 * the same manner.
 */
export const dataCategories = [
  'race',
  'ethnicity',
  'political-opinions',
  'beliefs',
  'sexual-behaviour',
  'criminal-records',
  'health',
  'disability',
  'trade-union',
  'genetic',
  'biometric',
  'other',
] as const;

export type DataCategory = (typeof dataCategories)[number];

/** A template's categories as stored: none when it covers no sensitive data. */
export function dataCategoriesOf(template: Pick<TemplateRow, 'data_categories'>): DataCategory[] {
  return template.data_categories ? (JSON.parse(template.data_categories) as DataCategory[]) : [];
}

/**
 * Sets the sensitive data a template covers (an empty list: none), and records who did
 * (`template.changed`, from and to). A `given` on any of its versions needs the explicit act's
 * evidence from the moment `latest` sees the change (within the second a publish takes).
 * `400 1001` naming `data_categories` for a code not in the list, or one given twice.
 */
export async function changeDataCategoriesAs(
  trx: Trx,
  actor: Actor,
  template: TemplateRow,
  categories: readonly string[],
): Promise<TemplateRow> {
  const unknown = categories.filter((c) => !(dataCategories as readonly string[]).includes(c));
  if (unknown.length > 0 || new Set(categories).size !== categories.length) {
    throw new AppError('invalidRequest', {
      details: [
        {
          field: 'data_categories',
          issue:
            unknown.length > 0
              ? `${unknown.join(', ')}: not one of ${dataCategories.join(', ')}`
              : 'a category is named twice',
        },
      ],
    });
  }
  await lockPublishes(trx, template.tenant_id, template.id);
  const before = dataCategoriesOf(template);
  const after = dataCategories.filter((c) => categories.includes(c));
  if (before.join() === after.join()) return template;
  const stored = after.length === 0 ? null : JSON.stringify(after);
  await setTemplateDataCategories(trx, template.tenant_id, template.id, stored);
  await recordAudit(trx, {
    ...actor,
    action: 'template.changed',
    target: template.code,
    details: { data_categories: { from: before, to: after } },
  });
  return { ...template, data_categories: stored };
}
