import { type Kysely, sql } from 'kysely';
import { v7 } from 'uuid';

/** The product a tenant's existing templates move to; an admin can rename it. */
const general = { code: 'general', name: 'General', description: '' };

/**
 * Products: the business area that owns a consent requirement (code, name, description, active
 * or archived). Every template now belongs to one. Each tenant that has templates gets a
 * product `general` ("General"), and its templates move to it; a tenant without templates gets
 * it with its first template.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('products')
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('code', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('archived_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('products_tenant_code_unique', ['tenant_id', 'code'])
    .execute();
  await db.schema.alterTable('templates').addColumn('product_id', 'text').execute();
  await db.schema
    .createIndex('templates_product_idx')
    .on('templates')
    .columns(['tenant_id', 'product_id'])
    .execute();

  const tenants = await sql<{ tenant_id: string }>`
    select distinct tenant_id from templates order by tenant_id`.execute(db);
  const now = new Date().toISOString();
  for (const { tenant_id } of tenants.rows) {
    const id = v7();
    await sql`insert into products (tenant_id, id, code, name, description, archived_at, created_at, updated_at)
      values (${tenant_id}, ${id}, ${general.code}, ${general.name}, ${general.description}, ${null}, ${now}, ${now})`.execute(
      db,
    );
    await sql`update templates set product_id = ${id} where tenant_id = ${tenant_id}`.execute(db);
  }
}
