import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiOf } from '../helpers/api.js';
import { json, subjectIdOf, type TestApp } from '../helpers/app.js';
import { publish, type SeededTenant, seedTemplate, seedTenant } from '../helpers/seed.js';
import { stores } from '../helpers/stores.js';
import { type PageClient, signedIn, startBackofficeApp, textOf } from './support.js';

describe.each(stores)('erasing a customer from the back-office on $name', (store) => {
  let t: TestApp;
  let a: SeededTenant;
  let b: SeededTenant;
  let code: string;
  let versionId: string;
  let pageA: PageClient;

  beforeAll(async () => {
    t = await startBackofficeApp(store);
    a = await seedTenant(t.db);
    b = await seedTenant(t.db);
    code = await seedTemplate(t.db, a.tenant.id);
    versionId = (await publish(t.db, a.tenant.id, code)).consent_version_id;
    pageA = await signedIn(t.app, a.tenant.email);
  });
  afterAll(async () => {
    await t.close();
  });

  const lookUp = (client: PageClient, customer: string) =>
    client.get(`/backoffice/customers?customer_id=${encodeURIComponent(customer)}`);
  const erasePage = (customer: string) =>
    `/backoffice/customers/erase?customer_id=${encodeURIComponent(customer)}`;

  it('asks first, wants the id typed again, then erases, records who did it, and the customer starts afresh', async () => {
    const customer = 'erase+me@example.test';
    const api = apiOf(t.app, a.headers);
    const decided = await api.decide(customer, versionId, 'given');
    expect(decided.statusCode).toBe(201);
    const decisionId = json(decided).data.decision_id;
    const subjectId = await subjectIdOf(t, a.tenant.id, customer);
    expect(subjectId).toBeDefined();

    const found = await lookUp(pageA, customer);
    expect(found.body).toContain(`href="${erasePage(customer).replace('+', '%2B')}"`);
    const confirm = await pageA.get(erasePage(customer));
    expect(confirm.statusCode).toBe(200);
    expect(textOf(confirm.body)).toContain('This cannot be undone.');

    // A slip of the keyboard erases nothing.
    const mistyped = await pageA.post('/backoffice/customers/erase', {
      customer_id: customer,
      confirm: 'erase+me@example.tes',
    });
    expect(mistyped.statusCode).toBe(400);
    expect(textOf(mistyped.body)).toContain('Type the customer id exactly as shown to confirm.');
    expect(await subjectIdOf(t, a.tenant.id, customer)).toBe(subjectId);

    const erased = await pageA.post('/backoffice/customers/erase', {
      customer_id: customer,
      confirm: customer,
    });
    expect(erased.statusCode).toBe(303);
    expect(erased.headers.location).toBe('/backoffice/customers?notice=erased');
    const notice = await pageA.get(String(erased.headers.location));
    expect(textOf(notice.body)).toContain('The customer was erased');

    expect(await subjectIdOf(t, a.tenant.id, customer)).toBeUndefined();
    expect(textOf((await lookUp(pageA, customer)).body)).toContain(
      `No decision recorded for ${customer}.`,
    );
    expect(json(await api.pending(customer, code)).data).toMatchObject({ accepted: false });
    const audit = await t.db
      .selectFrom('audit_log')
      .select(['actor', 'actor_name', 'actor_kind', 'target', 'details'])
      .where('tenant_id', '=', a.tenant.id)
      .where('action', '=', 'customer.erased')
      .execute();
    expect(audit).toEqual([
      {
        actor: a.tenant.email,
        // The name registering a tenant gives its first admin.
        actor_name: 'Administrator',
        actor_kind: 'tenant',
        target: subjectId,
        details: JSON.stringify({ decisions: 1, tombstones: 1 }),
      },
    ]);
    // The export keeps the decision, with nothing left of whose it was.
    const csv = parse((await pageA.get('/backoffice/exports/decisions.csv')).body, {
      columns: true,
    }) as Array<Record<string, string>>;
    const row = csv.find((r) => r.decision_id === decisionId);
    expect(row).toMatchObject({ decision: 'given', customer_id: '', ip: '', user_agent: '' });
    expect(JSON.stringify(csv)).not.toContain(customer);
    // The erased customer has no page to erase from any more.
    const again = await pageA.get(erasePage(customer));
    expect(again.headers.location).toBe('/backoffice/customers?notice=nothing-to-erase');
  });

  it("a look-up that finds nothing says how many of the tenant's customers were erased, the same for an erased id as for one never seen", async () => {
    const c = await seedTenant(t.db);
    const cCode = await seedTemplate(t.db, c.tenant.id);
    const cVersion = (await publish(t.db, c.tenant.id, cCode)).consent_version_id;
    const pageC = await signedIn(t.app, c.tenant.email);
    const api = apiOf(t.app, c.headers);

    // No erasure yet: the look-up says nothing of erasures.
    const before = textOf((await lookUp(pageC, 'never-seen')).body);
    expect(before).toContain('No decision recorded for never-seen.');
    expect(before).not.toContain('erased');

    expect((await api.decide('gone-1', cVersion, 'given')).statusCode).toBe(201);
    expect((await api.decide('gone-2', cVersion, 'given')).statusCode).toBe(201);
    expect((await api.decide('gone-2', cVersion, 'withdraw')).statusCode).toBe(201);
    for (const customer of ['gone-1', 'gone-2']) {
      await pageC.get(erasePage(customer));
      const erased = await pageC.post('/backoffice/customers/erase', {
        customer_id: customer,
        confirm: customer,
      });
      expect(erased.headers.location).toBe('/backoffice/customers?notice=erased');
    }
    const today = new Date().toISOString().slice(0, 10);

    const erasedAnswer = textOf((await lookUp(pageC, 'gone-2')).body);
    expect(erasedAnswer).toContain('No decision recorded for gone-2.');
    expect(erasedAnswer).toContain(
      'If this customer was erased, nothing about them can be found here: an erasure keeps no link to the customer id.',
    );
    expect(erasedAnswer).toContain('2 customers of this tenant were erased, the latest on');
    expect(erasedAnswer).toContain(today);
    expect(erasedAnswer).toContain(
      'their 3 decisions stay in the decision log, without whose they were',
    );
    // Nothing tells an erased id from one never seen: the answer is the same but for the id.
    const neverSeen = textOf((await lookUp(pageC, 'never-seen')).body);
    expect(neverSeen.replaceAll('never-seen', 'ID')).toBe(erasedAnswer.replaceAll('gone-2', 'ID'));
    // Another tenant's erasures are not counted here.
    expect(textOf((await lookUp(pageA, 'never-seen')).body)).not.toContain('2 customers');
  });

  it("another tenant's user cannot erase this tenant's customer, even knowing the id", async () => {
    const customer = 'kept-customer';
    expect((await apiOf(t.app, a.headers).decide(customer, versionId, 'given')).statusCode).toBe(
      201,
    );
    const pageB = await signedIn(t.app, b.tenant.email);
    await pageB.get('/backoffice/customers');
    const response = await pageB.post('/backoffice/customers/erase', {
      customer_id: customer,
      confirm: customer,
    });
    expect(response.headers.location).toBe('/backoffice/customers?notice=nothing-to-erase');
    expect(await subjectIdOf(t, a.tenant.id, customer)).toBeDefined();
  });
});
