import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addUser } from '../../src/accounts/users.js';
import { createApiKey, revokeApiKey } from '../../src/api-keys/index.js';
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

const page = '/backoffice/preference-centre';

/** A whole form as the page sends it, with what a test changes. */
const form = (fields: Record<string, string> = {}): Record<string, string> => ({
  display_name: 'Shop Example',
  logo_url: 'https://shop.example/logo.png',
  accent_colour: '#1f4e79',
  header_colour: '#000000',
  header_colour_default: 'true',
  allowed_origins: 'https://shop.example\nhttp://localhost:3000',
  ...fields,
});

/** The message shown next to a field, if any. */
function fieldError(body: string, name: string): string | undefined {
  const match = new RegExp(`<small id="${name}-error" class="field-error">([^<]*)</small>`).exec(
    body,
  );
  return match?.[1];
}

describe.each(storeAgnostic)(
  "a tenant's preference centre settings in the back-office, on $name",
  (store) => {
    let t: TestApp;
    let a: SeededTenant;
    let admin: PageClient;

    beforeAll(async () => {
      t = await startBackofficeApp(store);
      a = await seedTenant(t.db);
      admin = await signedIn(t.app, a.tenant.email);
    });
    afterAll(() => t?.close());

    const stored = () =>
      t.db
        .selectFrom('preference_centres')
        .selectAll()
        .where('tenant_id', '=', a.tenant.id)
        .executeTakeFirst();

    const audited = () =>
      t.db
        .selectFrom('audit_log')
        .select(['action', 'actor', 'details'])
        .where('tenant_id', '=', a.tenant.id)
        .where('action', 'like', 'preference_centre.%')
        .execute();

    it('before anything is set, shows the address pattern, the alias as the name and the default colours', async () => {
      const response = await admin.get(page);
      expect(response.statusCode).toBe(200);
      const text = textOf(response.body);
      expect(text).toContain(`https://consent.test/preferences/${a.tenant.alias}`);
      expect(text).toContain('/preferences/{alias}');
      expect(text).toContain(`Empty: your alias, ${a.tenant.alias}.`);
      expect(response.body).toMatch(
        /id="accent_colour_default" name="accent_colour_default" value="true" checked>/,
      );
      expect(response.body).toMatch(
        /id="header_colour_default" name="header_colour_default" value="true" checked>/,
      );
      expect(response.body).toContain('<button type="submit">Save</button>');
    });

    it('is in the Administration menu and linked from the Settings page', async () => {
      const settings = await admin.get('/backoffice/settings');
      const links = [...settings.body.matchAll(/href="\/backoffice\/preference-centre"/g)];
      // One in the navigation, one in the page.
      expect(links).toHaveLength(2);
    });

    it('saving valid settings redirects with the notice, shows them again and audits the change', async () => {
      const saved = await admin.submit(page, page, form());
      expect(saved.statusCode, saved.body).toBe(303);
      expect(saved.headers.location).toBe('/backoffice/preference-centre?notice=saved');

      const shown = await admin.get(String(saved.headers.location));
      expect(textOf(shown.body)).toContain('Preference centre saved.');
      expect(shown.body).toMatch(/name="display_name"[^>]*value="Shop Example"/);
      expect(shown.body).toContain('value="https://shop.example/logo.png"');
      expect(shown.body).toContain('id="accent_colour" name="accent_colour" value="#1f4e79"');
      expect(shown.body).not.toMatch(/name="accent_colour_default" value="true" checked/);
      expect(shown.body).toMatch(/name="header_colour_default" value="true" checked/);
      expect(shown.body).toContain('https://shop.example\nhttp://localhost:3000</textarea>');

      expect(await stored()).toMatchObject({
        display_name: 'Shop Example',
        logo_url: 'https://shop.example/logo.png',
        accent_colour: '#1f4e79',
        header_colour: null,
        allowed_origins: JSON.stringify(['https://shop.example', 'http://localhost:3000']),
      });
      const entries = await audited();
      expect(entries.map((e) => [e.action, e.actor])).toEqual([
        ['preference_centre.changed', a.tenant.email],
      ]);
      expect(JSON.parse(entries[0]?.details ?? '{}')).toMatchObject({
        accentColour: { from: null, to: '#1f4e79' },
        allowedOrigins: { from: [], to: ['https://shop.example', 'http://localhost:3000'] },
      });
    });

    it.each([
      [
        'an origin with a path',
        { allowed_origins: 'https://shop.example/path' },
        'allowed_origins',
        'https://shop.example/path',
      ],
      [
        'an http origin off this machine',
        { allowed_origins: 'https://shop.example\nhttp://shop.example' },
        'allowed_origins',
        'http://shop.example',
      ],
      [
        'white on yellow (contrast 1.07:1)',
        { accent_colour: '#ffff00' },
        'accent_colour',
        '#ffff00',
      ],
      ['a logo over plain http', { logo_url: 'http://shop.example/logo.png' }, 'logo_url', 'https'],
      ['a colour by its name', { accent_colour: 'red' }, 'accent_colour', '#rrggbb'],
      [
        'a header colour too light',
        { header_colour: '#ffff00', header_colour_default: '' },
        'header_colour',
        '#ffff00',
      ],
    ] as const)(
      '%s is refused next to its field, 400, and nothing is saved',
      async (_case, change, field, named) => {
        const before = await stored();
        const entries = (await audited()).length;
        const refused = await admin.submit(
          page,
          page,
          form({ display_name: 'Changed', ...change }),
        );
        expect(refused.statusCode).toBe(400);
        const message = fieldError(refused.body, field);
        expect(message).toBeDefined();
        expect(message).toContain(named);
        expect(refused.body).toContain(`id="${field}" name="${field}"`);
        expect(refused.body).toMatch(new RegExp(`name="${field}"[^>]*aria-invalid="true"`));
        // The form comes back with what was sent.
        expect(refused.body).toContain('value="Changed"');
        expect(await stored()).toEqual(before);
        expect((await audited()).length).toBe(entries);
      },
    );

    it('e-mail sign-in: a select of the live keys and Off; a chosen key is saved and audited, Off sets it back', async () => {
      const live = await createApiKey(t.db, a.tenant.id, { name: 'Shop sign-in' });
      const gone = await createApiKey(t.db, a.tenant.id, { name: 'Old system' });
      await t.db.transaction().execute((trx) => revokeApiKey(trx, a.tenant.id, gone.id));
      const shown = await admin.get(page);
      expect(shown.body).toContain('<label for="email_key_id">E-mail sign-in</label>');
      expect(shown.body).toMatch(/<option value="" selected>Off<\/option>/);
      expect(shown.body).toContain(`<option value="${live.id}">Shop sign-in</option>`);
      expect(shown.body).toContain(`<option value="${a.apiKey.id}">`);
      expect(shown.body).not.toContain(gone.id);

      const entries = (await audited()).length;
      const saved = await admin.submit(page, page, form({ email_key_id: live.id }));
      expect(saved.statusCode, saved.body).toBe(303);
      expect((await stored())?.email_key_id).toBe(live.id);
      const again = await admin.get(page);
      expect(again.body).toContain(`<option value="${live.id}" selected>Shop sign-in</option>`);
      const changes = (await audited()).slice(entries);
      expect(changes.map((e) => JSON.parse(e.details ?? '{}').emailKeyId)).toEqual([
        { from: null, to: live.id },
      ]);

      const off = await admin.submit(page, page, form({ email_key_id: '' }));
      expect(off.statusCode, off.body).toBe(303);
      expect((await stored())?.email_key_id).toBeNull();
    });

    it('e-mail sign-in under a revoked key or another tenant’s is refused next to its field, 400, and nothing is saved', async () => {
      const gone = await createApiKey(t.db, a.tenant.id, { name: 'Revoked system' });
      await t.db.transaction().execute((trx) => revokeApiKey(trx, a.tenant.id, gone.id));
      const b = await seedTenant(t.db);
      for (const keyId of [gone.id, b.apiKey.id, 'no-such-key']) {
        const before = await stored();
        const entries = (await audited()).length;
        const refused = await admin.submit(
          page,
          page,
          form({ display_name: 'Changed', email_key_id: keyId }),
        );
        expect(refused.statusCode, keyId).toBe(400);
        expect(fieldError(refused.body, 'email_key_id')).toContain('not revoked');
        expect(refused.body).toMatch(/name="email_key_id"[^>]*aria-invalid="true"/);
        expect(refused.body).toContain('value="Changed"');
        expect(await stored()).toEqual(before);
        expect((await audited()).length).toBe(entries);
      }
    });

    it('ticking "Use the default colour" sets a chosen colour back to none, whatever the picker sends', async () => {
      const chosen = await admin.submit(page, page, form({ accent_colour: '#1f4e79' }));
      expect(chosen.statusCode, chosen.body).toBe(303);
      expect((await stored())?.accent_colour).toBe('#1f4e79');
      const back = await admin.submit(
        page,
        page,
        form({ accent_colour: '#1f4e79', accent_colour_default: 'true' }),
      );
      expect(back.statusCode, back.body).toBe(303);
      expect((await stored())?.accent_colour).toBeNull();
      const shown = await admin.get(page);
      expect(shown.body).toMatch(/name="accent_colour_default" value="true" checked/);
    });

    it('a user with only settings:view sees disabled fields, no Save, and is refused the form (403)', async () => {
      const made = await admin.submit('/backoffice/roles/new', '/backoffice/roles', {
        name: 'Settings reader',
        description: 'Reads the settings',
        permissions: 'settings:view',
      });
      expect(made.statusCode, made.body).toBe(303);
      const role = await t.db
        .selectFrom('roles')
        .select('id')
        .where('tenant_id', '=', a.tenant.id)
        .where('name', '=', 'Settings reader')
        .executeTakeFirstOrThrow();
      const email = `reader-${a.tenant.alias}@example.test`;
      const passwordHash = await hashPassword(tenantPassword, testPasswordHashCost);
      await t.db
        .transaction()
        .execute((trx) =>
          addUser(trx, a.tenant.id, { email, name: 'Reader', roles: [role.id], passwordHash }),
        );
      const reader = await signedIn(t.app, email);
      const shown = await reader.get(page);
      expect(shown.statusCode).toBe(200);
      expect(shown.body).toContain('<fieldset disabled>');
      expect(shown.body).not.toContain('<button type="submit">Save</button>');
      expect(shown.body).not.toContain('action="/backoffice/preference-centre"');

      const before = await stored();
      const refused = await reader.post(page, form({ display_name: 'Not allowed' }));
      expect(refused.statusCode).toBe(403);
      expect(await stored()).toEqual(before);
    });
  },
);
