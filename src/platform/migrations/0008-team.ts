import { type Kysely, sql } from 'kysely';
import { v7 } from 'uuid';

/** The name the first user of an existing tenant gets; an admin can rename it. */
const firstUserName = 'Administrator';
const page = 500;

/**
 * A tenant's team: many users, each with roles (built-in role codes, or a tenant's own roles
 * made of permissions), one-time links that invite a person or reset a password, and the
 * tenant's settings (display time zone, four eyes on approval, two-factor required).
 * Operators gain a name and a status, so one operator can invite another. Audit entries name
 * who acted, not only their e-mail.
 *
 * Nobody loses access: each tenant's login becomes its first user, with the Admin role, the
 * same e-mail and the same password hash, and its open sessions carry on as that user's. The
 * tenant's own hash is then cleared: a copy of a credential nothing reads is only a risk.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('users')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('email', 'text', (c) => c.notNull().unique())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('password_hash', 'text')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('last_sign_in_at', 'text')
    .execute();
  await db.schema.createIndex('users_tenant_idx').on('users').columns(['tenant_id']).execute();

  await db.schema
    .createTable('roles')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('permissions', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('roles_tenant_name_unique', ['tenant_id', 'name'])
    .execute();

  await db.schema
    .createTable('user_roles')
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id'))
    .addColumn('role_id', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('user_roles_pk', ['user_id', 'role_id'])
    .execute();
  await db.schema.createIndex('user_roles_role_idx').on('user_roles').column('role_id').execute();

  await db.schema
    .createTable('account_tokens')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('purpose', 'text', (c) => c.notNull())
    .addColumn('account_kind', 'text', (c) => c.notNull())
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('created_by', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('used_at', 'text')
    .execute();
  await db.schema
    .createIndex('account_tokens_account_idx')
    .on('account_tokens')
    .columns(['account_kind', 'account_id'])
    .execute();

  await db.schema
    .alterTable('tenants')
    .addColumn('time_zone', 'text', (c) => c.notNull().defaultTo('UTC'))
    .execute();
  await db.schema
    .alterTable('tenants')
    .addColumn('four_eyes', 'integer', (c) => c.notNull().defaultTo(1))
    .execute();
  await db.schema
    .alterTable('tenants')
    .addColumn('two_factor_required', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();

  await db.schema
    .alterTable('operators')
    .addColumn('name', 'text', (c) => c.notNull().defaultTo(''))
    .execute();
  await db.schema
    .alterTable('operators')
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('active'))
    .execute();

  await db.schema.alterTable('backoffice_sessions').addColumn('user_id', 'text').execute();
  await db.schema
    .createIndex('backoffice_sessions_user_idx')
    .on('backoffice_sessions')
    .column('user_id')
    .execute();

  // The name of who acted, as it was then: a user removed later is still named.
  await db.schema.alterTable('audit_log').addColumn('actor_name', 'text').execute();

  await firstUsers(db);
}

interface TenantLogin {
  id: string;
  email: string;
  password_hash: string;
  created_at: string;
}

/** Each tenant's login becomes its first user, a page of tenants at a time in id order. */
async function firstUsers(db: Kysely<unknown>): Promise<void> {
  let after = '';
  for (;;) {
    const { rows } = await sql<TenantLogin>`
      select id, email, password_hash, created_at from tenants
      where id > ${after} order by id limit ${page}`.execute(db);
    for (const tenant of rows) {
      const userId = v7();
      const now = new Date().toISOString();
      await sql`
        insert into users (id, tenant_id, email, name, password_hash, status, created_at, updated_at)
        values (${userId}, ${tenant.id}, ${tenant.email.toLowerCase()}, ${firstUserName},
                ${tenant.password_hash}, 'active', ${tenant.created_at}, ${now})`.execute(db);
      await sql`insert into user_roles (user_id, role_id) values (${userId}, 'admin')`.execute(db);
      await sql`update backoffice_sessions set user_id = ${userId}
                where tenant_id = ${tenant.id}`.execute(db);
      await sql`update tenants set password_hash = '' where id = ${tenant.id}`.execute(db);
    }
    const last = rows.at(-1);
    if (rows.length < page || !last) return;
    after = last.id;
  }
}
