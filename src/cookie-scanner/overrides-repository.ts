import type { Executor } from '../platform/db.js';
import type { CookieClassificationOverridesTable } from './table.js';

/** A tenant's overrides, cookies before hosts, each by its pattern. */
export function listOverrideRows(db: Executor, tenantId: string) {
  return db
    .selectFrom('cookie_classification_overrides')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .orderBy('kind')
    .orderBy('pattern')
    .execute();
}

/** Sets an override, in place of the one on the same cookie or host. */
export async function putOverride(
  db: Executor,
  row: CookieClassificationOverridesTable,
): Promise<void> {
  await db
    .insertInto('cookie_classification_overrides')
    .values(row)
    .onConflict((oc) =>
      oc.columns(['tenant_id', 'kind', 'pattern']).doUpdateSet({
        category: row.category,
        provider: row.provider,
        purpose: row.purpose,
        retention: row.retention,
        updated_at: row.updated_at,
      }),
    )
    .execute();
}

/** Removes an override; answers whether there was one. */
export async function deleteOverride(
  db: Executor,
  tenantId: string,
  kind: 'cookie' | 'host',
  pattern: string,
): Promise<boolean> {
  const result = await db
    .deleteFrom('cookie_classification_overrides')
    .where('tenant_id', '=', tenantId)
    .where('kind', '=', kind)
    .where('pattern', '=', pattern)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}
