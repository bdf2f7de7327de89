/**
 * The Channels page,: the five and the tenant's own listed to those who see
 * channel blocks, a channel added by those who change them (audited, naming the user), bad input
 * answered with the form again, and the page and form refused to the others.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addUser } from '../../src/accounts/users.js';
import { hashPassword } from '../../src/tenants/passwords.js';
import type { TestApp } from '../helpers/app.js';
import { type SeededTenant, seedTenant } from '../helpers/seed.js';
import { storeAgnostic } from '../helpers/stores.js';
import { testPasswordHashCost } from '../helpers/time.js';
import {
  type PageClient,
  signedIn,
  startBackofficeApp,
  tenantPassword,
  textOf,
} from './support.js';

describe.each(storeAgnostic)('the Channels page on $name', (store) => {
  let t: TestApp;
  let a: SeededTenant;
  const clients: Record<string, PageClient> = {};

  beforeAll(async () => {
    t = await startBackofficeApp(store);
    a = await seedTenant(t.db);
    const hash = await hashPassword(tenantPassword, testPasswordHashCost);
    for (const role of ['editor', 'customer_service', 'auditor']) {
      await t.db.transaction().execute((trx) =>
        addUser(trx, a.tenant.id, {
          email: `${role}-${a.tenant.alias}@example.test`,
          name: role,
          roles: [role],
          passwordHash: hash,
        }),
      );
      clients[role] = await signedIn(t.app, `${role}-${a.tenant.alias}@example.test`);
    }
  });
  afterAll(() => t?.close());

  const client = (role: string) => clients[role] as PageClient;

  it('customer service adds a channel: it is listed after the five, and the act is audited', async () => {
    const made = await client('customer_service').submit(
      '/backoffice/channels',
      '/backoffice/channels',
      {
        code: 'whatsapp',
        name: 'WhatsApp',
      },
    );
    expect(made.statusCode, made.body).toBe(303);
    expect(made.headers.location).toBe('/backoffice/channels?notice=created');
    const page = textOf(
      (await client('customer_service').get('/backoffice/channels?notice=created')).body,
    );
    expect(page).toContain('Channel added.');
    expect(page).toMatch(/email Email built in .*post Post built in\s+—\s+whatsapp WhatsApp own/s);
    const audited = await t.db
      .selectFrom('audit_log')
      .select(['action', 'target', 'actor'])
      .where('tenant_id', '=', a.tenant.id)
      .where('action', 'like', 'channel.%')
      .execute();
    expect(audited).toEqual([
      {
        action: 'channel.created',
        target: 'whatsapp',
        actor: `customer_service-${a.tenant.alias}@example.test`,
      },
    ]);
  });

  it('one of the five, or a code taken, answers the form again with 400; nothing is added', async () => {
    for (const code of ['sms', 'Bad Code']) {
      const bad = await client('customer_service').submit(
        '/backoffice/channels',
        '/backoffice/channels',
        {
          code,
          name: 'X',
        },
      );
      expect(bad.statusCode).toBe(400);
      expect(textOf(bad.body)).toContain(
        'A lowercase code of letters, digits and -, at most 64, other than email, sms, push, phone and post.',
      );
    }
    const taken = await client('customer_service').submit(
      '/backoffice/channels',
      '/backoffice/channels',
      {
        code: 'whatsapp',
        name: 'Again',
      },
    );
    expect(taken.statusCode).toBe(400);
    expect(textOf(taken.body)).toContain('A channel with code "whatsapp" already exists.');
    const rows = await t.db
      .selectFrom('tenant_channels')
      .select('code')
      .where('tenant_id', '=', a.tenant.id)
      .execute();
    expect(rows).toEqual([{ code: 'whatsapp' }]);
  });

  it('an auditor sees the page without the form and may not add; an editor may not see it', async () => {
    const seen = await client('auditor').get('/backoffice/channels');
    expect(seen.statusCode).toBe(200);
    expect(textOf(seen.body)).toContain('whatsapp WhatsApp');
    expect(seen.body).not.toContain('Add channel');
    const added = await client('auditor').post('/backoffice/channels', {
      code: 'line',
      name: 'LINE',
    });
    expect(added.statusCode).toBe(403);
    expect((await client('editor').get('/backoffice/channels')).statusCode).toBe(403);
  });
});
