/**
 * Sessions a person and an admin can see (docs/team.md, "Sessions"), on both stores: a person's
 * own open sessions with device, address, how they signed in and when, signing out of another
 * browser; an admin's list of a user's sessions and "Sign out everywhere", which ends them all at
 * once; neither reaches a session that is not theirs to end; each act audited.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inviteUser, setPasswordFromLink } from '../../src/accounts/index.js';
import type { TestApp } from '../helpers/app.js';
import { type SeededTenant, seedTenant } from '../helpers/seed.js';
import { stores } from '../helpers/stores.js';
import { testPasswordHashCost } from '../helpers/time.js';
import { type PageClient, signedIn, startBackofficeApp, textOf } from './support.js';

const laptopAgent =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
const phoneAgent =
  'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36';
const actor = { actorKind: 'operator', actor: 'test', ip: 'local', userAgent: null } as const;

describe.each(stores)('sessions a person and an admin see, on $name', (store) => {
  let t: TestApp;
  let a: SeededTenant;
  const member = { email: '', password: 'the member password', id: '' };

  beforeAll(async () => {
    t = await startBackofficeApp(store);
    a = await seedTenant(t.db);
    member.email = `member@${a.tenant.alias}.example`;
    const invited = await t.db.transaction().execute((trx) =>
      inviteUser(trx, { ...actor, tenantId: a.tenant.id }, a.tenant.id, {
        email: member.email,
        name: 'Member Person',
        roles: ['auditor'],
      }),
    );
    member.id = invited.user.id;
    await t.db.transaction().execute((trx) =>
      setPasswordFromLink(trx, invited.token, member.password, testPasswordHashCost, {
        ip: 'local',
        userAgent: null,
      }),
    );
  });
  afterAll(async () => t?.close());

  const audits = (action: string) =>
    t.db
      .selectFrom('audit_log')
      .selectAll()
      .where('tenant_id', '=', a.tenant.id)
      .where('action', '=', action)
      .execute();
  /** Whether the client's session still opens the back-office (a dead one is sent to sign in). */
  const stillIn = async (client: PageClient) =>
    (await client.get('/backoffice/dashboard')).statusCode === 200;

  it('a person sees their sessions, this browser marked, and signs another browser out', async () => {
    const laptop = await signedIn(t.app, member.email, member.password, {
      ip: '198.51.100.7',
      userAgent: laptopAgent,
    });
    const phone = await signedIn(t.app, member.email, member.password, {
      ip: '203.0.113.9',
      userAgent: phoneAgent,
    });
    const page = await laptop.get('/backoffice/account/sessions');
    expect(page.statusCode).toBe(200);
    const rows = textOf(page.body);
    expect(rows).toContain('Chrome on Windows (this browser)');
    expect(rows).toContain('Chrome on Android');
    expect(rows).toContain('198.51.100.7');
    expect(rows).toContain('203.0.113.9');
    expect(rows).toContain('Password');
    // One "Sign out" form: the phone's, not this browser's.
    const forms = [...page.body.matchAll(/name="session" value="([0-9a-f]{64})"/g)].map(
      (m) => m[1],
    );
    expect(forms).toHaveLength(1);
    const ended = await laptop.post('/backoffice/account/sessions/end', {
      session: forms[0] ?? '',
    });
    expect(ended.statusCode).toBe(303);
    expect(await stillIn(phone)).toBe(false);
    expect(await stillIn(laptop)).toBe(true);
    expect(await audits('session.ended')).toHaveLength(1);
  });

  it('an admin sees a user’s sessions and signs them out everywhere at once; a person cannot end another’s', async () => {
    const first = await signedIn(t.app, member.email, member.password, { userAgent: laptopAgent });
    const second = await signedIn(t.app, member.email, member.password, { userAgent: phoneAgent });
    const admin = await signedIn(t.app, a.tenant.email);
    const userPage = await admin.get(`/backoffice/users/${member.id}`);
    expect(userPage.statusCode).toBe(200);
    expect(textOf(userPage.body)).toContain('Chrome on Android');

    // The member tries to end the admin's session by its handle: refused, nothing ended.
    const adminSession = await t.db
      .selectFrom('backoffice_sessions')
      .select('id_hash')
      .where('email', '=', a.tenant.email)
      .where('revoked_at', 'is', null)
      .executeTakeFirstOrThrow();
    await first.get('/backoffice/account/sessions');
    const refused = await first.post('/backoffice/account/sessions/end', {
      session: adminSession.id_hash,
    });
    expect(refused.statusCode).toBe(404);
    expect(await stillIn(admin)).toBe(true);

    const out = await admin.post(`/backoffice/users/${member.id}/sign-out`, {});
    expect(out.statusCode).toBe(303);
    expect(await stillIn(first)).toBe(false);
    expect(await stillIn(second)).toBe(false);
    expect(await stillIn(admin)).toBe(true);
    const entry = (await audits('user.signed_out')).at(-1);
    expect(entry).toMatchObject({ actor: a.tenant.email, target: member.email });
    expect(JSON.parse(entry?.details ?? '{}')).toMatchObject({ user_id: member.id });
    expect(JSON.parse(entry?.details ?? '{}').sessions_ended).toBeGreaterThanOrEqual(2);
    const after = await admin.get(`/backoffice/users/${member.id}`);
    expect(textOf(after.body)).toContain('No session is open.');
    expect(after.body).not.toContain(`/users/${member.id}/sign-out`);
  });
});
