/**
 * Who acted on a decision (PDPA section 20) and the explicit act (section 26) in the back-office:
 * on the decision's page, and under the decision in the customer's history; a decision that
 * said neither shows neither.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, type TestApp } from '../helpers/app.js';
import { publish, type SeededTenant, seedTemplate, seedTenant } from '../helpers/seed.js';
import { storeAgnostic } from '../helpers/stores.js';
import { type PageClient, signedIn, startBackofficeApp, textOf } from './support.js';

describe.each(storeAgnostic)('who acted, in the back-office on $name', (store) => {
  let t: TestApp;
  let a: SeededTenant;
  let admin: PageClient;
  let versionId: string;

  beforeAll(async () => {
    t = await startBackofficeApp(store);
    a = await seedTenant(t.db);
    admin = await signedIn(t.app, a.tenant.email);
    const code = await seedTemplate(t.db, a.tenant.id);
    versionId = (await publish(t.db, a.tenant.id, code)).consent_version_id;
  });
  afterAll(async () => {
    await t.close();
  });

  const decide = async (customer: string, extra: Record<string, unknown>) => {
    const answer = await t.app.inject({
      method: 'POST',
      url: `/api/v1/customers/${customer}/consents/decisions`,
      headers: a.headers,
      payload: { consent_version_id: versionId, decision: 'given', ...extra },
    });
    expect(answer.statusCode, answer.body).toBe(201);
    return json(answer).data.decision_id as string;
  };

  it("shows who acted and the explicit act on the decision's page and in the customer's history", async () => {
    const id = await decide('teen-bo', {
      acted_by: {
        role: 'subject',
        age_band: '10-19',
        co_consent: { role: 'parent', reference: 'parent-7731' },
      },
      explicit: { method: 'one-time-code', text_shown: 'I consent to my health data.' },
    });
    const words = 'the subject (age band 10-19), with the co-consent of parent (parent-7731)';
    const page = textOf((await admin.get(`/backoffice/decisions/${id}`)).body);
    expect(page).toContain(`Acted by ${words}`);
    expect(page).toContain('Explicit consent one-time-code: “I consent to my health data.”');
    const customer = textOf((await admin.get('/backoffice/customers?customer_id=teen-bo')).body);
    expect(customer).toContain(`by ${words}`);
    const guardian = await decide('ward-bo', {
      acted_by: { role: 'guardian', reference: 'g-55', court_order: 'Civil 1234/2568' },
    });
    expect(textOf((await admin.get(`/backoffice/decisions/${guardian}`)).body)).toContain(
      'Acted by guardian (g-55) (court order Civil 1234/2568)',
    );
  });

  it('a decision that said neither shows neither', async () => {
    const id = await decide('plain-bo', {});
    const page = textOf((await admin.get(`/backoffice/decisions/${id}`)).body);
    expect(page).not.toContain('Acted by');
    expect(page).not.toContain('Explicit consent');
  });
});
