import type { Executor } from '../platform/db.js';
import type {
  CookieConfigurationRow,
  CookieConfigurationStepsTable,
  CookieConfigurationsTable,
  CookieSystemRow,
  CookieSystemsTable,
} from './table.js';

export function insertSystem(db: Executor, row: CookieSystemsTable) {
  return db.insertInto('cookie_systems').values(row).execute();
}

export function findSystemByScope(
  db: Executor,
  tenantId: string,
  scope: string,
): Promise<CookieSystemRow | undefined> {
  return db
    .selectFrom('cookie_systems')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('scope', '=', scope)
    .executeTakeFirst();
}

export function findSystemById(
  db: Executor,
  tenantId: string,
  id: string,
): Promise<CookieSystemRow | undefined> {
  return db
    .selectFrom('cookie_systems')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .executeTakeFirst();
}

export function findSystemByName(db: Executor, tenantId: string, name: string) {
  return db
    .selectFrom('cookie_systems')
    .select('id')
    .where('tenant_id', '=', tenantId)
    .where('name', '=', name)
    .executeTakeFirst();
}

export function listSystemRows(db: Executor, tenantId: string): Promise<CookieSystemRow[]> {
  return db
    .selectFrom('cookie_systems')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .orderBy('name')
    .execute();
}

export function updateSystemRow(
  db: Executor,
  tenantId: string,
  id: string,
  changes: Partial<
    Pick<
      CookieSystemsTable,
      'name' | 'origins' | 'published_configuration_id' | 'configurations_made' | 'updated_at'
    >
  >,
) {
  return db
    .updateTable('cookie_systems')
    .set(changes)
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .execute();
}

export function insertConfiguration(db: Executor, row: CookieConfigurationsTable) {
  return db.insertInto('cookie_configurations').values(row).execute();
}

export function findConfiguration(
  db: Executor,
  tenantId: string,
  id: string,
): Promise<CookieConfigurationRow | undefined> {
  return db
    .selectFrom('cookie_configurations')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .executeTakeFirst();
}

export function listConfigurationRows(
  db: Executor,
  tenantId: string,
  systemId?: string,
): Promise<CookieConfigurationRow[]> {
  let query = db.selectFrom('cookie_configurations').selectAll().where('tenant_id', '=', tenantId);
  if (systemId !== undefined) query = query.where('system_id', '=', systemId);
  return query.orderBy('created_at', 'desc').orderBy('version', 'desc').execute();
}

export function updateConfigurationRow(
  db: Executor,
  tenantId: string,
  id: string,
  changes: Partial<
    Pick<
      CookieConfigurationsTable,
      | 'name'
      | 'effective_date'
      | 'status'
      | 'content'
      | 'content_sha256'
      | 'fingerprint'
      | 'updated_at'
      | 'published_at'
    >
  >,
) {
  return db
    .updateTable('cookie_configurations')
    .set(changes)
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .execute();
}

export function insertStep(db: Executor, row: CookieConfigurationStepsTable) {
  return db.insertInto('cookie_configuration_steps').values(row).execute();
}

export function listSteps(db: Executor, tenantId: string, configurationId: string) {
  return db
    .selectFrom('cookie_configuration_steps')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('configuration_id', '=', configurationId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

/** The system of a scope and its published configuration, for the public endpoints. */
export function findPublished(db: Executor, scope: string) {
  return db
    .selectFrom('cookie_systems as s')
    .leftJoin('cookie_configurations as c', (j) =>
      j.onRef('c.tenant_id', '=', 's.tenant_id').onRef('c.id', '=', 's.published_configuration_id'),
    )
    .innerJoin('tenants as t', 't.id', 's.tenant_id')
    .select([
      's.tenant_id',
      's.id as system_id',
      's.scope',
      's.origins',
      't.cookie_address',
      't.disabled_at',
      'c.id as configuration_id',
      'c.version',
      'c.content',
      'c.content_sha256',
      'c.fingerprint',
    ])
    .where('s.scope', '=', scope)
    .executeTakeFirst();
}

/** A configuration of the system that was published at some time (a page open since may use it). */
export function findPublishedOnce(
  db: Executor,
  tenantId: string,
  systemId: string,
  configurationId: string,
) {
  return db
    .selectFrom('cookie_configurations')
    .select(['id', 'version', 'content', 'content_sha256'])
    .where('tenant_id', '=', tenantId)
    .where('system_id', '=', systemId)
    .where('id', '=', configurationId)
    .where('published_at', 'is not', null)
    .executeTakeFirst();
}
