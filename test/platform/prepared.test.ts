import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { paramRow, prepared } from '../../src/platform/prepared.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { seedTenant } from '../helpers/seed.js';
import { stores } from '../helpers/stores.js';

describe.each(stores)('prepared queries on $name', (store) => {
  let t: TestApp;
  let tenantId: string;

  beforeAll(async () => {
    t = await startTestApp(store);
    tenantId = (await seedTenant(t.db)).tenant.id;
  });
  afterAll(async () => {
    await t.close();
  });

  const columns = [
    'tenant_id',
    'id',
    'code',
    'name',
    'description',
    'created_at',
    'default_locale',
  ] as const;
  const insertTemplate = prepared((db, p: (name: (typeof columns)[number]) => never) =>
    db.insertInto('templates').values(paramRow(columns, p)),
  );
  const templateByCode = prepared((db, p: (name: 'tenantId' | 'code') => never) =>
    db
      .selectFrom('templates')
      .select(['id', 'name', 'description'])
      .where('tenant_id', '=', p('tenantId'))
      .where('code', '=', p('code'))
      // The same value twice, and a constant beside the parameters.
      .where((eb) => eb.or([eb('name', '!=', p('code')), eb('description', '=', 'constant')])),
  );

  // Each code's template id, a UUID as the service's are.
  const ids = new Map<string, string>();
  const idOf = (code: string): string => {
    const id = ids.get(code) ?? randomUUID();
    ids.set(code, id);
    return id;
  };
  const template = (code: string) => ({
    tenant_id: tenantId,
    id: idOf(code),
    code,
    name: `Name of ${code}`,
    description: `About ${code}`,
    created_at: new Date().toISOString(),
    default_locale: 'en',
  });

  it('runs with each call its own values, inserts and selects alike', async () => {
    for (const code of ['prep-a', 'prep-b', 'prep-c']) {
      const result = await insertTemplate.run(t.db, template(code));
      expect(Number(result.numAffectedRows)).toBe(1);
    }
    for (const code of ['prep-c', 'prep-a', 'prep-b']) {
      expect(await templateByCode.first(t.db, { tenantId, code })).toEqual({
        id: idOf(code),
        name: `Name of ${code}`,
        description: `About ${code}`,
      });
    }
    expect(await templateByCode.first(t.db, { tenantId, code: 'prep-none' })).toBeUndefined();
    expect(
      await templateByCode.first(t.db, { tenantId: randomUUID(), code: 'prep-a' }),
    ).toBeUndefined();
  });

  it('answers what the same query built each time answers', async () => {
    const built = await t.db
      .selectFrom('templates')
      .select(['id', 'name', 'description'])
      .where('tenant_id', '=', tenantId)
      .where('code', '=', 'prep-b')
      .executeTakeFirst();
    expect(await templateByCode.first(t.db, { tenantId, code: 'prep-b' })).toEqual(built);
  });

  it('runs inside a transaction, which a rollback undoes', async () => {
    await expect(
      t.db.transaction().execute(async (trx) => {
        await insertTemplate.run(trx, template('prep-rolled-back'));
        expect(
          await templateByCode.first(trx, { tenantId, code: 'prep-rolled-back' }),
        ).toBeTruthy();
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect(
      await templateByCode.first(t.db, { tenantId, code: 'prep-rolled-back' }),
    ).toBeUndefined();
  });

  // PostgreSQL only: SQLite keeps its statements prepared in the process (src/platform/sqlite.ts).
  if (store.name === 'postgres') {
    it('the connection prepares the statement on the server once and reuses it', async () => {
      const named = await t.db.transaction().execute(async (trx) => {
        await templateByCode.first(trx, { tenantId, code: 'prep-a' });
        await templateByCode.first(trx, { tenantId, code: 'prep-b' });
        const { rows } = await sql<{
          name: string;
          calls: string;
        }>`select name, generic_plans + custom_plans as calls from pg_prepared_statements
           where statement like '%from "templates"%' and name like 'cs_%'`.execute(trx);
        return rows;
      });
      expect(named).toHaveLength(1);
      expect(Number(named[0]?.calls)).toBeGreaterThanOrEqual(2);
    });
  }

  it('refuses a missing value instead of sending a stand-in to the store', async () => {
    await expect(
      templateByCode.first(t.db, { tenantId } as { tenantId: string; code: string }),
    ).rejects.toThrow('No value for code');
  });
});
