/**
 * A customer's channels on their page in the back-office, on both stores: every product times
 * every channel of the tenant, blocked or allowed and since when (`block_channels:view`), and a
 * button a row (`block_channels:edit`) that records the change through the hot path's writer
 * with the user as its evidence: `user_id`, no API key, the user's address and user agent. The
 * change is audited naming the user, its receipt opens `user_id` and verifies offline, and the
 * log's audit stays clean.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRole } from '../../src/accounts/roles.js';
import { addUser } from '../../src/accounts/users.js';
import { registry } from '../../src/app/kinds.js';
import { createTenantChannel } from '../../src/channels/index.js';
import { verifyReceiptFile } from '../../src/cli/verify-receipt.js';
import { auditLog } from '../../src/decision-log/audit.js';
import { createProduct } from '../../src/products/index.js';
import { parseVerifierKey, verifyReceipt } from '../../src/proof/index.js';
import { personalReader } from '../../src/subjects/index.js';
import { hashPassword } from '../../src/tenants/passwords.js';
import { json, type TestApp, testLogKeys } from '../helpers/app.js';
import { sealedAsBase64 } from '../helpers/sealed.js';
import { type SeededTenant, seedTenant } from '../helpers/seed.js';
import { stores } from '../helpers/stores.js';
import { testPasswordHashCost } from '../helpers/time.js';
import {
  type PageClient,
  signedIn,
  startBackofficeApp,
  tenantPassword,
  textOf,
} from './support.js';
import { userIdOf } from './team-support.js';

const by = { actorKind: 'operator', actor: 'test', ip: 'local', userAgent: null } as const;
const deskIp = '198.51.100.23';
const deskAgent = 'DeskBrowser/7.2 (marker-3f9a11c0)';

describe.each(stores)("a customer's channels in the back-office on $name", (store) => {
  let t: TestApp;
  let a: SeededTenant;
  let service: PageClient;
  let serviceEmail: string;
  let auditor: PageClient;
  let lookOnly: PageClient;

  beforeAll(async () => {
    t = await startBackofficeApp(store, { LOG_INTEGRATE_INTERVAL_MS: '60000' });
    a = await seedTenant(t.db);
    const actor = { ...by, tenantId: a.tenant.id };
    for (const [code, name] of [
      ['savings', 'Savings'],
      ['loans', 'Loans'],
    ] as const) {
      await t.db
        .transaction()
        .execute((trx) => createProduct(trx, actor, a.tenant.id, { code, name }));
    }
    await t.db
      .transaction()
      .execute((trx) =>
        createTenantChannel(trx, actor, a.tenant.id, { code: 'whatsapp', name: 'WhatsApp' }),
      );
    const lookUpOnly = await createRole(t.db, a.tenant.id, {
      name: 'Look-up only',
      description: 'Sees records',
      permissions: ['customers:view'],
    });
    const hash = await hashPassword(tenantPassword, testPasswordHashCost);
    for (const [name, roles] of [
      ['service', ['customer_service']],
      ['auditor', ['auditor']],
      ['look', [lookUpOnly.id]],
    ] as const) {
      await t.db.transaction().execute((trx) =>
        addUser(trx, a.tenant.id, {
          email: `${name}-${a.tenant.alias}@example.test`,
          name: `The ${name}`,
          roles: [...roles],
          passwordHash: hash,
        }),
      );
    }
    serviceEmail = `service-${a.tenant.alias}@example.test`;
    service = await signedIn(t.app, serviceEmail, tenantPassword, {
      ip: deskIp,
      userAgent: deskAgent,
    });
    auditor = await signedIn(t.app, `auditor-${a.tenant.alias}@example.test`);
    lookOnly = await signedIn(t.app, `look-${a.tenant.alias}@example.test`);
  });
  afterAll(() => t?.close());

  const pageOf = (client: PageClient, customer: string) =>
    client.get(`/backoffice/customers?customer_id=${encodeURIComponent(customer)}`);
  const change = async (customer: string, product: string, channel: string, blocked: boolean) => {
    await pageOf(service, customer);
    return service.post('/backoffice/customers/channels', {
      customer_id: customer,
      product_code: product,
      channel,
      blocked: String(blocked),
    });
  };
  const apiStates = async (customer: string) => {
    const response = await t.app.inject({
      method: 'GET',
      url: `/api/v1/customers/${encodeURIComponent(customer)}/channels`,
      headers: a.headers,
    });
    return json(response).data as {
      product_code: string;
      channel: string;
      blocked: boolean;
      since: string | null;
      record_id: string | null;
    }[];
  };
  const verifier = () => {
    const key = parseVerifierKey(testLogKeys.verifierKey);
    if (!key.ok) throw new Error(key.reason);
    return key.value;
  };

  it('the page shows every product times every channel, blocked or allowed, a block made through the API included', async () => {
    const blocked = await t.app.inject({
      method: 'PUT',
      url: '/api/v1/customers/cust-77/channels/savings/email',
      headers: { ...a.headers, 'content-type': 'application/json' },
      payload: '{"blocked":true}',
    });
    expect(blocked.statusCode, blocked.body).toBe(201);
    const page = await pageOf(service, 'cust-77');
    expect(page.statusCode).toBe(200);
    const text = textOf(page.body);
    expect(text).toContain('Channels');
    const rows = [
      ...text.matchAll(
        /(loans|savings) (Email|SMS|Push|Phone|Post|WhatsApp) (\w+) (blocked|allowed)/g,
      ),
    ].map((m) => `${m[1]}/${m[3]} ${m[4]}`);
    expect(rows).toEqual([
      'loans/email allowed',
      'loans/sms allowed',
      'loans/push allowed',
      'loans/phone allowed',
      'loans/post allowed',
      'loans/whatsapp allowed',
      'savings/email blocked',
      'savings/sms allowed',
      'savings/push allowed',
      'savings/phone allowed',
      'savings/post allowed',
      'savings/whatsapp allowed',
    ]);
    expect(text).toContain('never changed');
    // One button a row, each a form that carries the customer id in its body.
    expect(page.body.match(/action="\/backoffice\/customers\/channels"/g)).toHaveLength(12);
  });

  it('blocking from the page records the change with the user as evidence, audits it naming them, and answers the page', async () => {
    const response = await change('cust-77', 'loans', 'sms', true);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.headers.location).toBeUndefined();
    const text = textOf(response.body);
    expect(text).toContain('Blocked sms for loans.');
    expect(text).toMatch(/loans SMS sms blocked/);

    const state = (await apiStates('cust-77')).find(
      (s) => s.product_code === 'loans' && s.channel === 'sms',
    );
    expect(state).toMatchObject({ blocked: true });
    const rows = await sealedAsBase64(
      t.db,
      await t.db
        .selectFrom('channel_changes')
        .select(['id', 'subject_id', 'personal', 'api_key_id', 'user_id', 'blocked'])
        .where('id', '=', state?.record_id as string)
        .execute(),
    );
    const userId = await userIdOf(t.db, serviceEmail);
    expect(rows.map((r) => [r.api_key_id, r.user_id, Number(r.blocked)])).toEqual([
      [null, userId, 1],
    ]);
    const opened = await personalReader(t.db, t.vault, a.tenant.id)(rows);
    expect(opened[0]?.personal).toEqual({
      customer_id: 'cust-77',
      ip: deskIp,
      user_agent: deskAgent,
    });

    const audited = await t.db
      .selectFrom('audit_log')
      .select(['action', 'target', 'actor', 'actor_name', 'details', 'ip'])
      .where('tenant_id', '=', a.tenant.id)
      .where('action', 'in', ['channel.blocked', 'channel.allowed'])
      .execute();
    expect(audited).toEqual([
      {
        action: 'channel.blocked',
        target: state?.record_id,
        actor: serviceEmail,
        actor_name: 'The service',
        details: '{"product_code":"loans","channel":"sms"}',
        ip: deskIp,
      },
    ]);
  });

  it("the change's receipt opens user_id and no API key, verifies offline, and the log's audit is clean", async () => {
    await change('cust-88', 'savings', 'whatsapp', true);
    const state = (await apiStates('cust-88')).find((s) => s.channel === 'whatsapp' && s.blocked);
    const receipt = await t.app.inject({
      method: 'GET',
      url: `/api/v1/channel-changes/${state?.record_id}/receipt?wait=true`,
      headers: a.headers,
    });
    expect(receipt.statusCode, receipt.body).toBe(200);
    const body = json(receipt);
    const userId = await userIdOf(t.db, serviceEmail);
    expect(body.data.opening).toMatchObject({
      customer_id: 'cust-88',
      api_key_id: null,
      user_id: userId,
      ip: deskIp,
      user_agent: deskAgent,
    });
    expect(body.data.channel_change).toMatchObject({
      product_code: 'savings',
      channel: 'whatsapp',
      blocked: true,
      customer_id: 'cust-88',
    });
    expect(verifyReceipt(body, [verifier()], registry.formats)).toMatchObject({
      ok: true,
      value: { kind: 'channel-change', opened: true },
    });
    // As `consent-service verify-receipt` checks the file.
    const dir = mkdtempSync(join(tmpdir(), 'channel-receipt-'));
    try {
      const file = join(dir, 'receipt.json');
      writeFileSync(file, receipt.body);
      expect(verifyReceiptFile(file, testLogKeys.verifierKey, registry.formats)).toMatchObject({
        valid: true,
        kind: 'channel-change',
        opened: true,
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    // The leaf commits to the user: another user id does not open it.
    const altered = structuredClone(body);
    altered.data.opening.user_id = '0190e8a0-0000-7000-8000-0000000000aa';
    expect(verifyReceipt(altered, [verifier()], registry.formats)).toMatchObject({ ok: false });
    expect(await auditLog(t.db, t.vault, registry, a.tenant.id)).toMatchObject({
      ok: true,
      findings: [],
    });
  });

  it('a change to the state the channel has records nothing and says so; allowing records one', async () => {
    const again = await change('cust-77', 'loans', 'sms', true);
    expect(again.statusCode).toBe(200);
    expect(textOf(again.body)).toContain(
      'sms for loans was already blocked: nothing was recorded.',
    );
    const allowed = await change('cust-77', 'loans', 'sms', false);
    expect(textOf(allowed.body)).toContain('Allowed sms for loans.');
    const changes = await t.db
      .selectFrom('channel_changes')
      .select('blocked')
      .where('tenant_id', '=', a.tenant.id)
      .where('product_code', '=', 'loans')
      .where('channel', '=', 'sms')
      .orderBy('changed_at')
      .execute();
    expect(changes.map((c) => Number(c.blocked))).toEqual([1, 0]);
  });

  it('an unknown product or channel is refused with 404 and records nothing', async () => {
    const before = await t.db.selectFrom('channel_changes').select('id').execute();
    expect((await change('cust-77', 'cards', 'email', true)).statusCode).toBe(404);
    expect((await change('cust-77', 'savings', 'fax', true)).statusCode).toBe(404);
    expect(await t.db.selectFrom('channel_changes').select('id').execute()).toHaveLength(
      before.length,
    );
  });

  it('an auditor sees the channels without buttons and may not change one; without block_channels:view the page has no channels', async () => {
    const seen = await pageOf(auditor, 'cust-77');
    expect(textOf(seen.body)).toMatch(/savings Email email blocked/);
    expect(seen.body).not.toContain('/backoffice/customers/channels');
    const refused = await auditor.post('/backoffice/customers/channels', {
      customer_id: 'cust-77',
      product_code: 'savings',
      channel: 'email',
      blocked: 'false',
    });
    expect(refused.statusCode).toBe(403);
    expect(
      (await apiStates('cust-77')).find(
        (s) => s.channel === 'email' && s.product_code === 'savings',
      ),
    ).toMatchObject({ blocked: true });
    const plain = await pageOf(lookOnly, 'cust-77');
    expect(plain.statusCode).toBe(200);
    expect(textOf(plain.body)).not.toMatch(/savings Email email blocked/);
  });

  it("the page lists the customer's channel changes newest first, each with who made it and from where", async () => {
    const page = await pageOf(service, 'cust-77');
    const table = page.body.split('<table class="channel-history">')[1]?.split('</table>')[0] ?? '';
    const rows = table
      .split('<tr>')
      .slice(2)
      .map((row) =>
        textOf(row)
          .trim()
          .replace(/^\S+ \S+ UTC /, ''),
      );
    expect(rows).toEqual([
      `loans sms allowed ${serviceEmail} (back-office) ${deskIp} ${deskAgent}`,
      `loans sms blocked ${serviceEmail} (back-office) ${deskIp} ${deskAgent}`,
      'savings email blocked test key (API) 127.0.0.1 lightMyRequest',
    ]);
    // Without block_channels:view, no changes either.
    expect((await pageOf(lookOnly, 'cust-77')).body).not.toContain('channel-history');
  });
});
