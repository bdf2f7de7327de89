import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  changePartner,
  createPartner,
  deletePartner,
  getPartner,
  listPartners,
  setReleasePartners,
} from '../../src/partners/index.js';
import { AppError } from '../../src/platform/errors.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { type SeededTenant, seedTenant } from '../helpers/seed.js';
import { stores } from '../helpers/stores.js';

describe.each(stores)('the register of partners on $name', (store) => {
  let t: TestApp;
  let a: SeededTenant;
  let b: SeededTenant;
  const actorOf = (s: SeededTenant) =>
    ({
      tenantId: s.tenant.id,
      actorKind: 'tenant',
      actor: s.tenant.email,
      ip: '127.0.0.1',
      userAgent: null,
    }) as const;

  beforeAll(async () => {
    t = await startTestApp(store);
    a = await seedTenant(t.db);
    b = await seedTenant(t.db);
  });
  afterAll(() => t?.close());

  const create = (s: SeededTenant, input: unknown) =>
    t.db.transaction().execute((trx) => createPartner(trx, actorOf(s), s.tenant.id, input));
  const failure = async (promise: Promise<unknown>) => {
    const error = await promise.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(AppError);
    const e = error as AppError;
    return { status: e.status, code: e.code, message: e.message, details: e.details };
  };
  const audit = async (s: SeededTenant) =>
    (
      await t.db
        .selectFrom('audit_log')
        .select(['action', 'target', 'details'])
        .where('tenant_id', '=', s.tenant.id)
        .where('action', 'like', 'partner.%')
        .orderBy('created_at')
        .orderBy('id')
        .execute()
    ).map((e) => ({
      action: e.action,
      target: e.target,
      details: typeof e.details === 'string' ? JSON.parse(e.details) : e.details,
    }));

  it('a partner is made with its fields as given, the country in upper case, and its making audited', async () => {
    const made = await create(a, {
      code: 'acme-insure',
      name: 'Acme Insurance',
      purpose: 'Insurance offers',
      country: 'th',
      policy_url: 'https://acme.example/privacy',
    });
    expect(made).toMatchObject({
      code: 'acme-insure',
      name: 'Acme Insurance',
      purpose: 'Insurance offers',
      country: 'TH',
      policy_url: 'https://acme.example/privacy',
    });
    const minimal = await create(a, { code: 'beta', name: 'Beta Ltd' });
    expect(minimal).toMatchObject({ purpose: '', country: null, policy_url: null });
    expect((await listPartners(t.db, a.tenant.id)).map((p) => [p.code, p.release_count])).toEqual([
      ['acme-insure', 0],
      ['beta', 0],
    ]);
    expect(await audit(a)).toEqual([
      { action: 'partner.created', target: 'acme-insure', details: { name: 'Acme Insurance' } },
      { action: 'partner.created', target: 'beta', details: { name: 'Beta Ltd' } },
    ]);
  });

  it.each([
    [{ code: 'Acme', name: 'x' }, 'code'],
    [{ code: 'acme_1', name: 'x' }, 'code'],
    [{ code: '-acme', name: 'x' }, 'code'],
    [{ code: 'ok-code', name: '' }, 'name'],
    [{ code: 'ok-code' }, 'name'],
    [{ code: 'ok-code', name: 'x', country: 'THA' }, 'country'],
    [{ code: 'ok-code', name: 'x', country: 'XX' }, 'country'],
    [{ code: 'ok-code', name: 'x', country: 'EU' }, 'country'],
    [{ code: 'ok-code', name: 'x', policy_url: 'http://acme.example/privacy' }, 'policy_url'],
    [{ code: 'ok-code', name: 'x', policy_url: 'acme.example/privacy' }, 'policy_url'],
    [{ code: 'ok-code', name: 'x', colour: 'red' }, 'colour'],
  ])('bad input %j answers 400 1001 naming %s, and makes nothing', async (input, field) => {
    const e = await failure(create(a, input));
    expect(e).toMatchObject({ status: 400, code: '1001' });
    expect(e.details?.map((d) => d.field)).toContain(field);
    await expect(getPartner(t.db, a.tenant.id, 'ok-code')).rejects.toMatchObject({ code: '1004' });
  });

  it('a code taken in the tenant answers 409 1005; another tenant may use it, and sees none of the first', async () => {
    await create(a, { code: 'shared-code', name: 'First' });
    const e = await failure(create(a, { code: 'shared-code', name: 'Second' }));
    expect(e).toEqual({
      status: 409,
      code: '1005',
      message: 'A partner with code "shared-code" already exists.',
      details: undefined,
    });
    expect((await create(b, { code: 'shared-code', name: 'Of b' })).name).toBe('Of b');
    expect((await listPartners(t.db, b.tenant.id)).map((p) => p.code)).toEqual(['shared-code']);
    expect((await getPartner(t.db, a.tenant.id, 'shared-code')).name).toBe('First');
    await expect(getPartner(t.db, b.tenant.id, 'beta')).rejects.toMatchObject({ code: '1004' });
  });

  it('a change keeps the code, and the audit entry says what changed from what', async () => {
    await create(a, { code: 'gamma', name: 'Gamma', country: 'DE' });
    const changed = await t.db
      .transaction()
      .execute((trx) =>
        changePartner(trx, actorOf(a), a.tenant.id, 'gamma', { name: 'Gamma AG', country: 'DE' }),
      );
    expect(changed).toMatchObject({ code: 'gamma', name: 'Gamma AG', country: 'DE' });
    expect((await audit(a)).at(-1)).toEqual({
      action: 'partner.changed',
      target: 'gamma',
      details: { name: { from: 'Gamma', to: 'Gamma AG' } },
    });
  });

  it('a partner a release lists is not deleted (409 with the reason); one no release lists is, audited', async () => {
    await create(a, { code: 'listed', name: 'Listed' });
    await create(a, { code: 'unlisted', name: 'Unlisted' });
    await t.db
      .transaction()
      .execute((trx) => setReleasePartners(trx, a.tenant.id, randomUUID(), ['listed']));
    const e = await failure(
      t.db.transaction().execute((trx) => deletePartner(trx, actorOf(a), a.tenant.id, 'listed')),
    );
    expect(e).toEqual({
      status: 409,
      code: '1005',
      message: 'Partner "listed" is listed by a version of a template, so it cannot be deleted.',
      details: undefined,
    });
    await t.db
      .transaction()
      .execute((trx) => deletePartner(trx, actorOf(a), a.tenant.id, 'unlisted'));
    await expect(getPartner(t.db, a.tenant.id, 'unlisted')).rejects.toMatchObject({
      code: '1004',
    });
    expect((await audit(a)).at(-1)).toEqual({
      action: 'partner.deleted',
      target: 'unlisted',
      details: { name: 'Unlisted' },
    });
  });

  it("a release may list only the tenant's own partners: another's code answers 400 1001 naming partners", async () => {
    const e = await failure(
      t.db
        .transaction()
        .execute((trx) =>
          setReleasePartners(trx, b.tenant.id, 'b-release', ['beta', 'shared-code']),
        ),
    );
    expect(e).toMatchObject({
      status: 400,
      code: '1001',
      details: [{ field: 'partners', issue: 'names no partner of this tenant: "beta"' }],
    });
  });
});
