import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiOf } from '../helpers/api.js';
import type { TestApp } from '../helpers/app.js';
import { publish, type SeededTenant, seedTemplate, seedTenant } from '../helpers/seed.js';
import { stores } from '../helpers/stores.js';
import { signedIn, startBackofficeApp, textOf } from './support.js';

describe.each(stores)("the dashboard's standing on the latest version on $name", (store) => {
  let t: TestApp;
  let a: SeededTenant;
  let code: string;

  beforeAll(async () => {
    t = await startBackofficeApp(store);
    a = await seedTenant(t.db);
    code = await seedTemplate(t.db, a.tenant.id);
    const api = apiOf(t.app, a.headers);
    const decide = async (customer: string, version: string, decision: string) =>
      expect((await api.decide(customer, version, decision)).statusCode).toBe(201);
    const v1 = await publish(t.db, a.tenant.id, code, { tag: '1.0' });
    await decide('ann', v1.consent_version_id, 'given');
    await decide('bob', v1.consent_version_id, 'reject');
    await decide('cyd', v1.consent_version_id, 'given');
    const v2 = await publish(t.db, a.tenant.id, code, { tag: '2.0' });
    await decide('dee', v2.consent_version_id, 'given');
    await decide('ann', v2.consent_version_id, 'given');
    await decide('ann', v2.consent_version_id, 'withdraw');
    await decide('eve', v2.consent_version_id, 'reject');
  });
  afterAll(() => t?.close());

  it('counts the customers on the latest version by their last decision, those pending on an earlier one, and the share that gave consent', async () => {
    const page = await signedIn(t.app, a.tenant.email);
    const text = textOf((await page.get('/backoffice/dashboard')).body);
    expect(text).toContain(
      'Customers on the latest version (2, tag 2.0), by their last decision on it Given Rejected Withdrawn Pending 1 1 1 2',
    );
    expect(text).toContain(
      '33% of the 3 customers who decided on it gave consent. 2 customers decided on an earlier version only and are pending.',
    );
  });
});
