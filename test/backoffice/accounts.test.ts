import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildApp } from '../../src/app/app.js';
import { loadConfig } from '../../src/platform/config.js';
import { createDb, type Db } from '../../src/platform/db.js';
import { migrateToLatest } from '../../src/platform/migrate.js';
import { type TestApp, testDataKey, testLogKeys } from '../helpers/app.js';
import { type SeededTenant, seedTenant } from '../helpers/seed.js';
import { storeAgnostic, stores, type TestStore } from '../helpers/stores.js';
import { testPasswordHashCost } from '../helpers/time.js';
import { PageClient, signedIn, startBackofficeApp, tenantPassword, textOf } from './support.js';

describe.each(storeAgnostic)('slowing down password guessing on $name', (store) => {
  let t: TestApp;
  let a: SeededTenant;
  let b: SeededTenant;

  beforeAll(async () => {
    t = await startBackofficeApp(store, {
      SIGN_IN_FAILURES_PER_ACCOUNT: '3',
      SIGN_IN_FAILURES_PER_ADDRESS: '5',
    });
    a = await seedTenant(t.db);
    b = await seedTenant(t.db);
  });
  afterAll(async () => {
    await t.close();
  });

  const attempt = (ip: string, email: string, password: string) =>
    new PageClient(t.app, { ip }).signIn(email, password);

  it('after 3 failures on an account, even the right password waits (429, Retry-After), from any address', async () => {
    for (let i = 0; i < 3; i += 1) {
      expect((await attempt(`192.0.2.${i + 1}`, a.tenant.email, 'wrong password')).statusCode).toBe(
        401,
      );
    }
    const refused = await attempt('192.0.2.50', a.tenant.email, tenantPassword);
    expect(refused.statusCode).toBe(429);
    // 30 s from the third failure, less whatever time has passed since (no clock is held here).
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(30);
    expect(textOf(refused.body)).toContain('Too many failed sign-ins. Try again in');
    // Another account is not affected.
    expect((await attempt('192.0.2.51', b.tenant.email, tenantPassword)).statusCode).toBe(303);
  });

  it('once the wait is over, the right password signs in and clears the count; failing on, the wait doubles', async () => {
    const key = `account:${a.tenant.email}`;
    const past = new Date(Date.now() - 1000).toISOString();
    await t.db
      .updateTable('sign_in_throttle')
      .set({ blocked_until: past })
      .where('key', '=', key)
      .execute();
    expect((await attempt('192.0.2.60', a.tenant.email, tenantPassword)).statusCode).toBe(303);
    expect(
      await t.db
        .selectFrom('sign_in_throttle')
        .selectAll()
        .where('key', '=', key)
        .executeTakeFirst(),
    ).toBeUndefined();

    for (let i = 0; i < 3; i += 1)
      await attempt(`192.0.2.${70 + i}`, a.tenant.email, 'wrong password');
    await t.db
      .updateTable('sign_in_throttle')
      .set({ blocked_until: past })
      .where('key', '=', key)
      .execute();
    expect((await attempt('192.0.2.80', a.tenant.email, 'wrong password')).statusCode).toBe(401);
    const row = await t.db
      .selectFrom('sign_in_throttle')
      .selectAll()
      .where('key', '=', key)
      .executeTakeFirstOrThrow();
    expect(row.failures).toBe(4);
    const wait = Date.parse(row.blocked_until ?? '') - Date.parse(row.updated_at);
    expect(wait).toBe(60_000);
    await t.db.deleteFrom('sign_in_throttle').where('key', '=', key).execute();
  });

  it('after 5 failures from one address on any accounts, that address waits; another address does not', async () => {
    const ip = '198.51.100.99';
    for (let i = 0; i < 5; i += 1) {
      expect((await attempt(ip, `nobody${i}@example.test`, 'wrong password')).statusCode).toBe(401);
    }
    expect((await attempt(ip, b.tenant.email, tenantPassword)).statusCode).toBe(429);
    expect((await attempt('198.51.100.100', b.tenant.email, tenantPassword)).statusCode).toBe(303);
  });

  it('wrong current passwords on the change-password form count as failures too', async () => {
    const c = await seedTenant(t.db);
    const client = await signedIn(t.app, c.tenant.email, tenantPassword, { ip: '203.0.113.40' });
    await client.get('/backoffice/account/password');
    const change = () =>
      client.post('/backoffice/account/password', {
        current_password: 'wrong password',
        new_password: 'a brand new password',
        confirm_password: 'a brand new password',
      });
    for (let i = 0; i < 3; i += 1) expect((await change()).statusCode).toBe(400);
    expect((await change()).statusCode).toBe(429);
  });
});

describe.each(storeAgnostic)('the length of the sign-in wait on $name', (store) => {
  let t: TestApp;
  let a: SeededTenant;

  beforeAll(async () => {
    // The default limit per account (5); the address's count is left out.
    t = await startBackofficeApp(store, { SIGN_IN_FAILURES_PER_ADDRESS: '0' });
    a = await seedTenant(t.db);
  });
  afterAll(async () => {
    await t.close();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  const attempt = (password: string) =>
    new PageClient(t.app, { ip: '192.0.2.200' }).signIn(a.tenant.email, password);

  it('from the 5th failure on, each failure closes the account for 30 s, doubling up to 15 minutes and no more', async () => {
    // The service's clock is held, and moved on only by the waits it asks for.
    let now = Date.parse('2030-01-01T00:00:00.000Z');
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(now);
    for (let i = 0; i < 5; i += 1) expect((await attempt('wrong password')).statusCode).toBe(401);
    const waits: number[] = [];
    for (let i = 0; i < 6; i += 1) {
      const refused = await attempt(tenantPassword);
      expect(refused.statusCode).toBe(429);
      const wait = Number(refused.headers['retry-after']);
      waits.push(wait);
      now += wait * 1000;
      vi.setSystemTime(now);
      expect((await attempt('wrong password')).statusCode).toBe(401);
    }
    // 30 s doubling: 960 s would come next, but the wait stops at 15 minutes.
    expect(waits).toEqual([30, 60, 120, 240, 480, 900]);

    // However many failures came before (here 30, the last a minute ago), the wait is 15 minutes.
    await t.db
      .updateTable('sign_in_throttle')
      .set({
        failures: 30,
        blocked_until: new Date(now).toISOString(),
        updated_at: new Date(now - 60_000).toISOString(),
      })
      .where('key', '=', `account:${a.tenant.email}`)
      .execute();
    expect((await attempt('wrong password')).statusCode).toBe(401);
    expect((await attempt(tenantPassword)).headers['retry-after']).toBe('900');
  });
});

describe.each(stores)('the operator account at start on $name', (store: TestStore) => {
  let databaseUrl: string;
  let drop: () => Promise<void>;
  let db: Db;

  beforeAll(async () => {
    ({ databaseUrl, drop } = await store.create());
    db = createDb(loadConfig({ DATABASE_URL: databaseUrl }));
    await migrateToLatest(db, testDataKey);
  });
  afterAll(async () => {
    await db.destroy();
    await drop();
  });

  /** Builds the app as `serve` does, with its log captured. */
  async function start(env: Record<string, string>) {
    const lines: Array<Record<string, unknown>> = [];
    const config = loadConfig({
      DATABASE_URL: databaseUrl,
      PUBLIC_BASE_URL: 'https://consent.test',
      DATA_ENCRYPTION_KEY: testDataKey.toString('base64'),
      LOG_SIGNING_KEY: testLogKeys.signerKey,
      PASSWORD_HASH_COST: String(testPasswordHashCost),
      ...env,
    });
    const app = await buildApp(config, db, {
      logger: {
        level: 'info',
        stream: {
          write: (line: string) => lines.push(JSON.parse(line) as Record<string, unknown>),
        },
      },
    });
    await app.ready();
    return { app, lines };
  }

  it('without OPERATOR_PASSWORD, the first start creates the operator with a random password logged once', async () => {
    const first = await start({ OPERATOR_EMAIL: 'root@example.test' });
    const messages = first.lines.filter((l) => String(l.msg).includes('operator account created'));
    expect(messages).toHaveLength(1);
    expect(messages[0]?.level).toBe(40);
    const password =
      /the password (\S+) \(shown this once/.exec(String(messages[0]?.msg))?.[1] ?? '';
    expect(password.length).toBeGreaterThanOrEqual(20);
    const client = await signedIn(first.app, 'root@example.test', password);
    expect((await client.get('/backoffice/operator/tenants')).statusCode).toBe(200);
    await first.app.close();

    const second = await start({ OPERATOR_EMAIL: 'root@example.test' });
    expect(second.lines.filter((l) => String(l.msg).includes('password'))).toEqual([]);
    expect(
      (await new PageClient(second.app).signIn('root@example.test', password)).statusCode,
    ).toBe(303);
    await second.app.close();
    const stored = await db.selectFrom('operators').selectAll().execute();
    expect(stored).toHaveLength(1);
    expect(JSON.stringify(stored)).not.toContain(password);
  });

  it('with OPERATOR_PASSWORD, every start sets that password and a change ends the old sessions', async () => {
    const first = await start({
      OPERATOR_EMAIL: 'root@example.test',
      OPERATOR_PASSWORD: 'first password',
    });
    const client = await signedIn(first.app, 'root@example.test', 'first password');
    await first.app.close();
    const second = await start({
      OPERATOR_EMAIL: 'root@example.test',
      OPERATOR_PASSWORD: 'second password',
    });
    const old = new PageClient(second.app);
    for (const [name, value] of client.cookies) old.cookies.set(name, value);
    expect((await old.get('/backoffice/operator/tenants')).statusCode).toBe(303);
    expect(
      (await new PageClient(second.app).signIn('root@example.test', 'first password')).statusCode,
    ).toBe(401);
    expect(
      (await new PageClient(second.app).signIn('root@example.test', 'second password')).statusCode,
    ).toBe(303);
    await second.app.close();
  });
});
