import type { Executor } from './db.js';
import { nowIso } from './time.js';

/** A setting of the whole service kept with its store, by name. */
export interface StoreSettingsTable {
  name: string;
  value: string;
  updated_at: string;
}

export async function findStoreSetting(db: Executor, name: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('store_settings')
    .select('value')
    .where('name', '=', name)
    .executeTakeFirst();
  return row?.value;
}

/** Keeps `value` as the setting: in place of the one kept with `replace`, else only when none. */
export async function saveStoreSetting(
  db: Executor,
  name: string,
  value: string,
  { replace }: { replace: boolean },
): Promise<void> {
  await db
    .insertInto('store_settings')
    .values({ name, value, updated_at: nowIso() })
    .onConflict((oc) =>
      replace
        ? oc.column('name').doUpdateSet((eb) => ({
            value: eb.ref('excluded.value'),
            updated_at: eb.ref('excluded.updated_at'),
          }))
        : oc.column('name').doNothing(),
    )
    .execute();
}
