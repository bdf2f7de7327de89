import type { Executor } from '../platform/db.js';

/**
 * Deletes a configuration and its steps. Only a draft is ever deleted, so no system publishes it
 * and no visitor's choice names it.
 */
export async function deleteConfigurationRows(
  db: Executor,
  tenantId: string,
  id: string,
): Promise<void> {
  await db
    .deleteFrom('cookie_configuration_steps')
    .where('tenant_id', '=', tenantId)
    .where('configuration_id', '=', id)
    .execute();
  await db
    .deleteFrom('cookie_configurations')
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .execute();
}
