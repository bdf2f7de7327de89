import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registry } from '../../src/app/kinds.js';
import { publishOutsideReview, retireTemplate } from '../../src/templates/actions.js';
import { getTemplateByCode } from '../../src/templates/service.js';
import { createEndpoint } from '../../src/webhooks/service.js';
import { apiOf } from '../helpers/api.js';
import type { TestApp } from '../helpers/app.js';
import { publish, seedTemplate, seedTenant, unique } from '../helpers/seed.js';
import { storeAgnostic } from '../helpers/stores.js';
import { eventually, fastWebhooks, startReceiver, verified } from '../helpers/webhook-receiver.js';
import {
  fourEyesOff,
  publishThroughReview,
  signedIn,
  startBackofficeApp,
  textOf,
  writeDraft,
} from './support.js';

const secretPattern = /whsec_[A-Za-z0-9+/]{43}=/;

describe.each(storeAgnostic)('webhooks in the back-office on $name', (store) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startBackofficeApp(store, { ...fastWebhooks, WEBHOOK_GIVE_UP_AFTER_MS: '300' });
  });
  afterAll(async () => {
    await t.close();
  });

  async function tenantWithPage() {
    const a = await seedTenant(t.db);
    const page = await signedIn(t.app, a.tenant.email);
    const code = await seedTemplate(t.db, a.tenant.id);
    const version = await publish(t.db, a.tenant.id, code);
    return { a, page, version };
  }

  it('adding an endpoint shows its secret once; a decision then shows as a delivery, which can be sent again', async () => {
    const receiver = await startReceiver();
    try {
      const { a, page, version } = await tenantWithPage();
      const list = await page.get('/backoffice/webhooks');
      expect(list.statusCode).toBe(200);
      expect(textOf(list.body)).toContain('No endpoint yet.');
      const made = await page.post('/backoffice/webhooks', {
        url: receiver.url,
        events: 'decision.given',
        description: 'CRM',
      });
      expect(made.statusCode).toBe(303);
      const location = String(made.headers.location);
      expect(location).toMatch(/^\/backoffice\/webhooks\/[0-9a-f-]{36}$/);
      const first = await page.get(location);
      const secret = secretPattern.exec(first.body)?.[0] ?? '';
      expect(secret).not.toBe('');
      expect(textOf(first.body)).toContain('it is shown only this once');
      const reload = await page.get(location);
      expect(reload.body).not.toMatch(secretPattern);

      await apiOf(t.app, a.headers).decide(unique('c'), version.consent_version_id, 'given');
      await eventually(() => receiver.received.length === 1);
      expect(verified(secret, receiver.received[0] as never).type).toBe('decision.given');
      let shown = '';
      await eventually(async () => {
        shown = (await page.get(location)).body;
        return textOf(shown).includes('delivered');
      });
      const resend = /action="(\/backoffice\/webhooks\/[^"]+\/resend)"/.exec(shown)?.[1] ?? '';
      expect(resend).not.toBe('');
      const sent = await page.post(resend, {});
      expect(sent.statusCode).toBe(303);
      expect(receiver.received.length).toBe(2);
      expect(receiver.received[1]?.headers['webhook-id']).toBe(
        receiver.received[0]?.headers['webhook-id'],
      );
      const after = textOf((await page.get(String(sent.headers.location))).body);
      expect(after).toContain('Sent again');
      expect(after).toContain('(sent again)');
    } finally {
      await receiver.close();
    }
  });

  it('refuses a private address and an empty choice of events, saying why, and keeps what was typed', async () => {
    const { page } = await tenantWithPage();
    await page.get('/backoffice/webhooks');
    const refused = await page.post('/backoffice/webhooks', {
      url: 'https://169.254.169.254/latest',
      events: 'decision.given',
      description: 'metadata',
    });
    expect(refused.statusCode).toBe(400);
    expect(textOf(refused.body)).toContain('169.254.169.254 is a linkLocal address');
    expect(refused.body).toContain('value="metadata"');
    const none = await page.post('/backoffice/webhooks', { url: 'https://hooks.example.com/in' });
    expect(none.statusCode).toBe(400);
    expect(textOf(none.body)).toContain('Choose at least one event.');
  });

  it('an endpoint disabled after failing too long says so on the list and its page, and is enabled again there', async () => {
    const receiver = await startReceiver(() => 500);
    try {
      const { a, page, version } = await tenantWithPage();
      await page.get('/backoffice/webhooks');
      const made = await page.post('/backoffice/webhooks', {
        url: receiver.url,
        events: 'decision.given',
        description: '',
      });
      const location = String(made.headers.location);
      await page.get(location);
      await apiOf(t.app, a.headers).decide(unique('c'), version.consent_version_id, 'given');
      await eventually(async () =>
        textOf((await page.get('/backoffice/webhooks')).body).includes('is disabled'),
      );
      const list = await page.get('/backoffice/webhooks');
      expect(list.body).toContain('role="alert"');
      expect(textOf(list.body)).toContain('answered 500');
      const own = await page.get(location);
      expect(textOf(own.body)).toContain('is disabled');
      receiver.answer(() => 200);
      const enabled = await page.post(`${location}/enable`, {});
      expect(enabled.statusCode).toBe(303);
      await eventually(() => receiver.received.some((got) => got.status === 200));
      expect(textOf((await page.get(location)).body)).not.toContain('is disabled');
    } finally {
      await receiver.close();
    }
  });

  it('approving, publishing, scheduling and archiving send their version events, in that order', async () => {
    const receiver = await startReceiver();
    try {
      const { a, page } = await tenantWithPage();
      await fourEyesOff(t.db, a.tenant.id);
      const by = {
        tenantId: a.tenant.id,
        actorKind: 'operator',
        actor: 'test',
        ip: 'local',
        userAgent: null,
      } as const;
      const { secret } = await createEndpoint(t.db, t.vault, t.config.webhooks, registry, by, {
        url: receiver.url,
        events: ['version.approved', 'version.published', 'version.scheduled', 'version.archived'],
      });
      const code = await seedTemplate(t.db, a.tenant.id);
      const id = await writeDraft(page, code, { tag: '1.0', content_html: '<p>Reviewed text</p>' });
      expect((await publishThroughReview(page, code, id)).statusCode).toBe(303);
      const later = '2099-01-01T00:00:00.000Z';
      await t.db.transaction().execute((trx) =>
        publishOutsideReview(
          trx,
          by,
          a.tenant.id,
          code,
          {
            tag: '2.0',
            content_html: '<p>Next year</p>',
          },
          { effectiveAt: later },
        ),
      );
      const template = await getTemplateByCode(t.db, a.tenant.id, code);
      await t.db.transaction().execute((trx) => retireTemplate(trx, by, template));
      await eventually(() => receiver.received.length >= 4);
      const payloads = receiver.received.map((got) => verified(secret, got));
      expect(payloads.map((p) => p.type)).toEqual([
        'version.approved',
        'version.published',
        'version.scheduled',
        'version.archived',
      ]);
      expect(payloads[0]?.data).toMatchObject({
        consent_version_id: id,
        template_code: code,
        tag: '1.0',
        version: null,
      });
      expect(payloads[1]?.data).toMatchObject({
        consent_version_id: id,
        version: 1,
        allow_reconsent: true,
      });
      expect(payloads[2]?.data).toMatchObject({ tag: '2.0', version: 2, published_at: later });
      expect(payloads[3]?.data).toMatchObject({
        consent_version_id: id,
        version: 1,
        archived_at: expect.any(String),
      });
    } finally {
      await receiver.close();
    }
  });

  it('the replay form refuses what is not a position and sets the cursor back for one', async () => {
    const receiver = await startReceiver(() => 204);
    try {
      // The template's publication is the tenant's position 1, made before the endpoint: the
      // endpoint starts past it, and only a replay from 1 sends it.
      const { page } = await tenantWithPage();
      await page.get('/backoffice/webhooks');
      const made = await page.post('/backoffice/webhooks', {
        url: receiver.url,
        events: 'version.published',
        description: '',
      });
      const location = String(made.headers.location);
      const secret = secretPattern.exec((await page.get(location)).body)?.[0] ?? '';
      expect(textOf((await page.get(location)).body)).toContain('Delivered up to position 1');
      const bad = await page.post(`${location}/replay`, { from: 'soon' });
      expect(bad.statusCode).toBe(400);
      expect(textOf(bad.body)).toContain('A position: a whole number, 1 or more');
      expect(receiver.received).toEqual([]);
      const good = await page.post(`${location}/replay`, { from: '1' });
      expect(good.statusCode).toBe(303);
      expect(textOf((await page.get(String(good.headers.location))).body)).toContain('Replay set');
      // The cursor went back before position 1: the dispatcher sends that event again, and the
      // page then shows it delivered (whenever the dispatcher gets to it).
      await eventually(() => receiver.received.length === 1);
      const got = receiver.received[0] as Parameters<typeof verified>[1];
      expect(got.headers['webhook-position']).toBe('1');
      expect(verified(secret, got).type).toBe('version.published');
      await eventually(async () => {
        const shown = textOf((await page.get(location)).body);
        return shown.includes('Delivered up to position 1') && shown.includes('delivered');
      });
    } finally {
      await receiver.close();
    }
  });
});
