import type { StoreKeysTable } from './data-key.js';
import type { StoreSettingsTable } from './store-settings-repository.js';

/**
 * The whole schema, as Kysely sees it. Each folder that owns tables adds them to this interface
 * from its own `table.ts` (`declare module '../platform/database.js'`), so the schema is assembled
 * from the features while the platform imports none of them; a kind of record declared in a
 * folder of its own (a test's included) brings its tables the same way.
 */
export interface Database {
  store_keys: StoreKeysTable;
  store_settings: StoreSettingsTable;
}
