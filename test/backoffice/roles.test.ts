import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addUser } from '../../src/accounts/users.js';
import type { TestApp } from '../helpers/app.js';
import { type SeededTenant, seedTenant } from '../helpers/seed.js';
import { storeAgnostic } from '../helpers/stores.js';
import { type PageClient, signedIn, startBackofficeApp, textOf } from './support.js';

/** The text of the table row whose first cell links to this path. */
function rowOf(page: string, href: string): string {
  const row = [...page.matchAll(/<tr>([\s\S]*?)<\/tr>/g)]
    .map((m) => m[1] ?? '')
    .find((r) => r.includes(`href="${href}"`));
  return textOf(row ?? '');
}

describe.each(storeAgnostic)('roles and who holds them, on $name', (store) => {
  let t: TestApp;
  let a: SeededTenant;
  let admin: PageClient;

  beforeAll(async () => {
    t = await startBackofficeApp(store);
    a = await seedTenant(t.db);
    admin = await signedIn(t.app, a.tenant.email);
  });
  afterAll(() => t?.close());

  /** A custom role, and people holding it (the first of them holding nothing else). */
  async function roleHeldBy(roleName: string, people: Array<[string, string[]]>) {
    const made = await admin.submit('/backoffice/roles/new', '/backoffice/roles', {
      name: roleName,
      description: 'Keeps the keys',
      permissions: 'api_keys:view',
    });
    expect(made.statusCode).toBe(303);
    const id = /\/roles\/([0-9a-f-]{36})/.exec(String(made.headers.location))?.[1] ?? '';
    const users: string[] = [];
    for (const [name, others] of people) {
      const user = await t.db.transaction().execute((trx) =>
        addUser(trx, a.tenant.id, {
          email: `${name.toLowerCase().replace(/ /g, '.')}-${a.tenant.alias}@example.test`,
          name,
          roles: [id, ...others],
        }),
      );
      users.push(user.id);
    }
    return { id, users };
  }

  it('the roles list names who holds each role, built-in and custom', async () => {
    await roleHeldBy('Key keeper', [
      ['Kim Keys', []],
      ['Lee Locks', ['editor']],
    ]);
    const page = await admin.get('/backoffice/roles');
    expect(page.statusCode).toBe(200);
    const keeper = [...page.body.matchAll(/href="(\/backoffice\/roles\/[0-9a-f-]{36})"/g)][0]?.[1];
    expect(rowOf(page.body, keeper ?? '')).toContain('Kim Keys, Lee Locks');
    expect(rowOf(page.body, '/backoffice/roles/admin')).toContain('Administrator');
    expect(rowOf(page.body, '/backoffice/roles/editor')).toContain('Lee Locks');
    expect(rowOf(page.body, '/backoffice/roles/auditor')).toContain('Nobody');
  });

  it('deleting a role that people hold names them and asks to confirm; confirmed, it is gone and its sole holder is shown with no role', async () => {
    const { id, users } = await roleHeldBy('Temporary', [
      ['Nia Nobody', []],
      ['Omar Other', ['reviewer']],
    ]);
    const rolePage = await admin.get(`/backoffice/roles/${id}`);
    const section = textOf(rolePage.body.slice(rolePage.body.indexOf('<h2>Delete</h2>')));
    expect(section).toContain('Nia Nobody and Omar Other hold this role');
    expect(section).toContain('Nia Nobody would be left with no role');

    // Sent without ticking the box (as a browser without scripts would send it): asked again.
    const unconfirmed = await admin.post(`/backoffice/roles/${id}/delete`, {});
    expect(unconfirmed.statusCode).toBe(400);
    const asked = textOf(unconfirmed.body);
    expect(asked).toContain('Tick the box to confirm the deletion.');
    expect(asked).toContain('Nia Nobody and Omar Other hold this role');
    expect(await t.db.selectFrom('roles').select('id').where('id', '=', id).execute()).toEqual([
      { id },
    ]);

    const deleted = await admin.post(`/backoffice/roles/${id}/delete`, { confirm: 'true' });
    expect(deleted.statusCode).toBe(303);
    expect(await t.db.selectFrom('roles').select('id').where('id', '=', id).execute()).toEqual([]);

    const team = await admin.get('/backoffice/users');
    expect(rowOf(team.body, `/backoffice/users/${users[0]}`)).toContain('No role');
    expect(rowOf(team.body, `/backoffice/users/${users[1]}`)).toContain('Reviewer');
    expect(rowOf(team.body, `/backoffice/users/${users[1]}`)).not.toContain('No role');
    const nia = await admin.get(`/backoffice/users/${users[0]}`);
    expect(textOf(nia.body)).toContain('Roles No role');
  });

  it('a role nobody holds is deleted after the same confirmation, and says nobody loses anything', async () => {
    const { id } = await roleHeldBy('Unused', []);
    const rolePage = await admin.get(`/backoffice/roles/${id}`);
    expect(textOf(rolePage.body)).toContain('Nobody holds this role.');
    const deleted = await admin.post(`/backoffice/roles/${id}/delete`, { confirm: 'true' });
    expect(deleted.statusCode).toBe(303);
  });
});
