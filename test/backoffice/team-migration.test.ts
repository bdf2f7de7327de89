import { createHash } from 'node:crypto';
import { type Migration, Migrator } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/platform/db.js';
import * as initial from '../../src/platform/migrations/0001-initial.js';
import * as backoffice from '../../src/platform/migrations/0002-backoffice.js';
import * as decisionLog from '../../src/platform/migrations/0003-decision-log.js';
import * as customerHistory from '../../src/platform/migrations/0004-customer-history.js';
import * as logAudits from '../../src/platform/migrations/0005-log-audits.js';
import { subjectsMigration } from '../../src/platform/migrations/0006-subjects.js';
import * as backofficeFlashes from '../../src/platform/migrations/0007-backoffice-flashes.js';
import { hashPassword } from '../../src/tenants/passwords.js';
import { type TestApp, testDataKey } from '../helpers/app.js';
import { stores } from '../helpers/stores.js';
import { testPasswordHashCost } from '../helpers/time.js';
import { operator, PageClient, startBackofficeApp, textOf } from './support.js';

/** The schema every store had before users: migrations 0001 to 0007. */
function schemaBeforeUsers(): Record<string, Migration> {
  return {
    '0001-initial': initial,
    '0002-backoffice': backoffice,
    '0003-decision-log': decisionLog,
    '0004-customer-history': customerHistory,
    '0005-log-audits': logAudits,
    '0006-subjects': subjectsMigration(testDataKey),
    '0007-backoffice-flashes': backofficeFlashes,
  };
}

const acme = {
  id: '0190e8a0-0000-7000-8000-0000000000a1',
  alias: 'acme',
  email: 'Compliance@Acme.test',
  password: 'the password acme had before',
};
const globex = {
  id: '0190e8a0-0000-7000-8000-0000000000b2',
  alias: 'globex',
  email: 'it@globex.test',
  password: 'globex kept this one for years',
};
/** A session acme's browser had open when the service was upgraded. */
const openSession = 'A'.repeat(43);

async function storeBeforeUsers(db: Db): Promise<void> {
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => schemaBeforeUsers() },
  });
  expect((await migrator.migrateToLatest()).error).toBeUndefined();
  const now = new Date();
  for (const tenant of [acme, globex]) {
    await db
      .insertInto('tenants')
      // The columns tenants had then.
      .values({
        id: tenant.id,
        alias: tenant.alias,
        email: tenant.email.toLowerCase(),
        password_hash: await hashPassword(tenant.password, testPasswordHashCost),
        created_at: '2026-01-01T00:00:00.000Z',
        disabled_at: null,
      } as never)
      .execute();
  }
  await db
    .insertInto('backoffice_sessions')
    .values({
      id_hash: createHash('sha256').update(openSession).digest('hex'),
      tenant_id: acme.id,
      operator_id: null,
      email: acme.email.toLowerCase(),
      ip: '127.0.0.1',
      user_agent: null,
      created_at: now.toISOString(),
      last_seen_at: now.toISOString(),
      expires_at: new Date(now.getTime() + 3_600_000).toISOString(),
      revoked_at: null,
    } as never)
    .execute();
}

describe.each(stores)('upgrading a store made before users, on $name', (store) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startBackofficeApp(store, {}, { beforeMigrations: storeBeforeUsers });
  });
  afterAll(() => t?.close());

  it("each tenant's login is now its first user, an active Admin with the same e-mail", async () => {
    const users = await t.db
      .selectFrom('users')
      .innerJoin('user_roles', 'user_roles.user_id', 'users.id')
      .select(['users.tenant_id', 'users.email', 'users.status', 'user_roles.role_id'])
      .orderBy('users.email')
      .execute();
    expect(users).toEqual([
      { tenant_id: acme.id, email: 'compliance@acme.test', status: 'active', role_id: 'admin' },
      { tenant_id: globex.id, email: 'it@globex.test', status: 'active', role_id: 'admin' },
    ]);
  });

  it('every tenant signs in with its old e-mail and password, and sees the whole back-office', async () => {
    for (const tenant of [acme, globex]) {
      const client = new PageClient(t.app);
      const signIn = await client.signIn(tenant.email, tenant.password);
      expect(signIn.statusCode).toBe(303);
      expect(signIn.headers.location).toBe('/backoffice/dashboard');
      for (const page of ['/backoffice/templates', '/backoffice/users', '/backoffice/roles']) {
        expect((await client.get(page)).statusCode).toBe(200);
      }
    }
  });

  it('a session open before the upgrade goes on, as the first user', async () => {
    const client = new PageClient(t.app);
    client.cookies.set('__Host-backoffice_session', openSession);
    const page = await client.get('/backoffice/users');
    expect(page.statusCode).toBe(200);
    expect(textOf(page.body)).toContain('compliance@acme.test');
  });

  it("the tenants' own password hashes are cleared: nothing reads them any more", async () => {
    const rows = await t.db.selectFrom('tenants').select('password_hash').execute();
    expect(rows.map((r) => r.password_hash)).toEqual(['', '']);
  });

  it('the operator signs in as before', async () => {
    const client = new PageClient(t.app);
    const signIn = await client.signIn(operator.email, operator.password);
    expect(signIn.headers.location).toBe('/backoffice/operator/tenants');
  });
});
