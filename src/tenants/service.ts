import type { Db, Executor } from '../platform/db.js';
import { AppError } from '../platform/errors.js';
import { newId } from '../platform/ids.js';
import { nowIso } from '../platform/time.js';
import { validate } from '../platform/validation.js';
import { hashPassword } from './passwords.js';
import { NewTenant, type TenantView } from './schemas.js';
import type { TenantRow } from './table.js';

/** Registers a tenant (the operator's act): alias and e-mail are unique across the service. */
export async function createTenant(db: Db, input: unknown): Promise<TenantView> {
  const { alias, email, password } = validate(NewTenant, input);
  const normalizedEmail = email.toLowerCase();
  const passwordHash = await hashPassword(password);
  return db.transaction().execute(async (trx) => {
    const clash = await trx
      .selectFrom('tenants')
      .select(['alias', 'email'])
      .where((eb) => eb.or([eb('alias', '=', alias), eb('email', '=', normalizedEmail)]))
      .executeTakeFirst();
    if (clash) {
      const field = clash.alias === alias ? 'alias' : 'email';
      throw new AppError('conflict', { message: `A tenant with this ${field} already exists.` });
    }
    const row = {
      id: newId(),
      alias,
      email: normalizedEmail,
      password_hash: passwordHash,
      created_at: nowIso(),
      disabled_at: null,
    };
    await trx.insertInto('tenants').values(row).execute();
    return { id: row.id, alias, email: normalizedEmail };
  });
}

/** The tenant with that alias; `404 1004` when there is none. */
export async function getTenantByAlias(db: Executor, alias: string): Promise<TenantRow> {
  const tenant = await db
    .selectFrom('tenants')
    .selectAll()
    .where('alias', '=', alias)
    .executeTakeFirst();
  if (!tenant) throw new AppError('notFound', { message: `No tenant with alias "${alias}".` });
  return tenant;
}

export async function countTenants(db: Executor): Promise<number> {
  const { count } = await db
    .selectFrom('tenants')
    .select((eb) => eb.fn.countAll<number | string>().as('count'))
    .executeTakeFirstOrThrow();
  return Number(count);
}
