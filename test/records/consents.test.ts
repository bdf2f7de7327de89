import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appendDecisions } from '../../src/decisions/repository.js';
import type { DecisionValue } from '../../src/decisions/table.js';
import { sha256Hex } from '../../src/platform/hashing.js';
import { newId } from '../../src/platform/ids.js';
import { sealPersonal } from '../../src/subjects/personal.js';
import {
  findLiveSubjectRow,
  newSubject,
  openSubject,
  storeNewSubjects,
} from '../../src/subjects/service.js';
import type { PublishedVersion } from '../../src/templates/schemas.js';
import {
  createDraftVersion,
  createTemplate,
  getTemplateByCode,
} from '../../src/templates/service.js';
import { apiOf, withinPublishBound } from '../helpers/api.js';
import { expectErrorShape, json, startTestApp, type TestApp } from '../helpers/app.js';
import { publish, type SeededTenant, seedTemplate, seedTenant, unique } from '../helpers/seed.js';
import { stores } from '../helpers/stores.js';

const storedTime = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe.each(stores)('GET .../consents and .../as-of on $name', (store) => {
  let t: TestApp;
  let a: SeededTenant;
  let b: SeededTenant;
  let api: ReturnType<typeof apiOf>;

  beforeAll(async () => {
    t = await startTestApp(store);
    a = await seedTenant(t.db);
    b = await seedTenant(t.db);
    api = apiOf(t.app, a.headers);
  });
  afterAll(async () => {
    await t.close();
  });

  function consents(
    customer: string,
    query: Record<string, string> = {},
    headers: Record<string, string> = a.headers,
  ) {
    const search = new URLSearchParams(query).toString();
    return t.app.inject({
      method: 'GET',
      url: `/api/v1/customers/${encodeURIComponent(customer)}/consents${search ? `?${search}` : ''}`,
      headers,
    });
  }

  function asOf(
    customer: string,
    code: string,
    query: Record<string, string>,
    headers: Record<string, string> = a.headers,
  ) {
    const search = new URLSearchParams(query).toString();
    return t.app.inject({
      method: 'GET',
      url: `/api/v1/customers/${encodeURIComponent(customer)}/consents/templates/${code}/as-of?${search}`,
      headers,
    });
  }

  /** Every page of the customer's history, following `next_cursor` (bounded). */
  async function allPages(customer: string, limit: number, headers = a.headers) {
    const pages: any[] = [];
    let cursor: string | null = null;
    for (let i = 0; i < 50; i += 1) {
      const query: Record<string, string> = { limit: String(limit) };
      if (cursor !== null) query.cursor = cursor;
      const response = await consents(customer, query, headers);
      expect(response.statusCode).toBe(200);
      const data = json(response).data;
      pages.push(data);
      cursor = data.next_cursor;
      if (cursor === null) return pages;
    }
    throw new Error('more than 50 pages');
  }

  /**
   * Records a decision straight into the store at a chosen time (as the decision service would,
   * per-customer states included), so tests can place decisions on a timeline and make ties.
   */
  async function insertDecision(
    tenantId: string,
    customer: string,
    version: PublishedVersion,
    decision: DecisionValue,
    decidedAt: string,
    id = newId(),
  ): Promise<string> {
    await t.db.transaction().execute(async (trx) => {
      const lookup = t.vault.lookup(tenantId, customer);
      const known = await findLiveSubjectRow(trx, tenantId, lookup);
      let subject = known && openSubject(t.vault, tenantId, known);
      if (!subject) {
        const fresh = newSubject(t.vault, tenantId, customer, lookup, decidedAt);
        await storeNewSubjects(trx, [fresh.row]);
        subject = fresh.subject;
      }
      const v = await trx
        .selectFrom('template_versions')
        .select(['template_id', 'content_sha256'])
        .where('tenant_id', '=', tenantId)
        .where('id', '=', version.consent_version_id)
        .executeTakeFirstOrThrow();
      const { seq } = await trx
        .selectFrom('decisions')
        .select((eb) => eb.fn.max('seq').as('seq'))
        .where('tenant_id', '=', tenantId)
        .where('subject_id', '=', subject.id)
        .where('template_id', '=', v.template_id)
        .executeTakeFirstOrThrow();
      const row = {
        tenant_id: tenantId,
        id,
        subject_id: subject.id,
        template_id: v.template_id,
        consent_version_id: version.consent_version_id,
        version: version.version,
        decision,
        seq: Number(seq ?? 0) + 1,
        decided_at: decidedAt,
        api_key_id: a.apiKey.id,
        personal: sealPersonal(subject.key, id, {
          customer_id: customer,
          ip: '127.0.0.1',
          user_agent: null,
        }),
        content_sha256: v.content_sha256,
        idempotency_key: null,
        evidence_salt: null,
      };
      await appendDecisions(trx, [row], [row], [row]);
    });
    return id;
  }

  /** Places a version's publication on the timeline (test setup only: versions never change). */
  async function setPublishedAt(tenantId: string, version: PublishedVersion, at: string) {
    await t.db
      .updateTable('template_versions')
      .set({ published_at: at })
      .where('tenant_id', '=', tenantId)
      .where('id', '=', version.consent_version_id)
      .execute();
    return { ...version, published_at: at };
  }

  /** Newest first: by decided_at, then by decision id, both descending. */
  function newestFirst<T extends { decided_at: string; decision_id: string }>(rows: T[]): T[] {
    const key = (r: T) => `${r.decided_at} ${r.decision_id}`;
    return [...rows].sort((x, y) => (key(x) < key(y) ? 1 : key(x) > key(y) ? -1 : 0));
  }

  function expectInvalid(response: { statusCode: number }, field: string) {
    expect(response.statusCode).toBe(400);
    const body = expectErrorShape(response as any) as any;
    expect(body).toMatchObject({ code: '1001', message: 'Invalid request.' });
    expect(body.details.map((d: { field: string }) => d.field)).toContain(field);
  }

  describe('GET /api/v1/customers/{customer_id}/consents', () => {
    it('for a customer with no decision, answers 200 with empty lists and no next page', async () => {
      const customer = unique('nobody');
      const response = await consents(customer);
      expect(response.statusCode).toBe(200);
      expect(response.headers['cache-control']).toBe('no-store');
      const body = json(response);
      expect(Object.keys(body)).toEqual(['data']);
      expect(body.data).toEqual({
        customer_id: customer,
        templates: [],
        history: [],
        next_cursor: null,
      });
    });

    it('answers the standing on each template and every decision with its version, tag and content hash', async () => {
      const first = `a_${unique('tpl')}`;
      const second = `b_${unique('tpl')}`;
      // Made directly rather than with seedTemplate, so that their order by code is known.
      await t.db
        .transaction()
        .execute((trx) => createTemplate(trx, a.tenant.id, { code: first, name: 'First' }));
      await t.db
        .transaction()
        .execute((trx) => createTemplate(trx, a.tenant.id, { code: second, name: 'Second' }));
      const f1 = await publish(t.db, a.tenant.id, first, { content_html: '<p>first v1</p>' });
      const s1 = await publish(t.db, a.tenant.id, second, { content_html: '<p>second v1</p>' });
      const customer = unique('c');
      const d1 = json(await api.decide(customer, f1.consent_version_id, 'given')).data;
      const d2 = json(await api.decide(customer, s1.consent_version_id, 'given')).data;
      const d3 = json(await api.decide(customer, s1.consent_version_id, 'reject')).data;
      // A newer version of the first template: the customer is pending on it again.
      const f2 = await publish(t.db, a.tenant.id, first, { content_html: '<p>first v2</p>' });

      const response = await consents(customer);
      expect(response.statusCode).toBe(200);
      const data = json(response).data;
      expect(data.customer_id).toBe(customer);
      expect(data.next_cursor).toBeNull();
      expect(data.templates).toEqual([
        {
          template_code: first,
          latest_version: { consent_version_id: f2.consent_version_id, version: 2, tag: f2.tag },
          accepted: false,
          last_decision: {
            decision_id: d1.decision_id,
            decision: 'given',
            consent_version_id: f1.consent_version_id,
            version: 1,
            tag: f1.tag,
            decided_at: d1.decided_at,
          },
        },
        {
          template_code: second,
          latest_version: { consent_version_id: s1.consent_version_id, version: 1, tag: s1.tag },
          accepted: true,
          last_decision: {
            decision_id: d3.decision_id,
            decision: 'reject',
            consent_version_id: s1.consent_version_id,
            version: 1,
            tag: s1.tag,
            decided_at: d3.decided_at,
          },
        },
      ]);
      const entry = (d: any, v: PublishedVersion, content: string) => ({
        decision_id: d.decision_id,
        template_code: v.template_code,
        consent_version_id: v.consent_version_id,
        version: v.version,
        tag: v.tag,
        decision: d.decision,
        decided_at: d.decided_at,
        content_sha256: sha256Hex(content),
      });
      expect(data.history).toEqual(
        newestFirst([
          entry(d1, f1, '<p>first v1</p>'),
          entry(d2, s1, '<p>second v1</p>'),
          entry(d3, s1, '<p>second v1</p>'),
        ]),
      );
    });

    it('lists the history newest first, ties on decided_at ordered by decision id', async () => {
      const code = await seedTemplate(t.db, a.tenant.id);
      const other = await seedTemplate(t.db, a.tenant.id);
      const v = await publish(t.db, a.tenant.id, code);
      const w = await publish(t.db, a.tenant.id, other);
      const customer = unique('c');
      const times = [
        '2025-01-01T00:00:00.000Z',
        '2025-01-02T00:00:00.000Z',
        '2025-01-02T00:00:00.000Z',
        '2025-01-02T00:00:00.000Z',
        '2025-01-03T00:00:00.000Z',
      ];
      const inserted: { decision_id: string; decided_at: string }[] = [];
      for (const [i, at] of times.entries()) {
        const id = await insertDecision(a.tenant.id, customer, i % 2 ? w : v, 'given', at);
        inserted.push({ decision_id: id, decided_at: at });
      }
      const history = json(await consents(customer)).data.history;
      expect(history.map((h: any) => h.decision_id)).toEqual(
        newestFirst(inserted).map((d) => d.decision_id),
      );
      expect(history[0].decided_at).toBe('2025-01-03T00:00:00.000Z');
      expect(history.at(-1).decided_at).toBe('2025-01-01T00:00:00.000Z');
    });

    it('pages through the whole history with the cursor, across ties on decided_at, with no gap or repeat', async () => {
      const code = await seedTemplate(t.db, a.tenant.id);
      const other = await seedTemplate(t.db, a.tenant.id);
      const v = await publish(t.db, a.tenant.id, code);
      const w = await publish(t.db, a.tenant.id, other);
      const customer = unique('c');
      const inserted: { decision_id: string; decided_at: string }[] = [];
      // 11 decisions on 4 distinct times: runs of equal times straddle every page boundary.
      const times = [1, 1, 1, 2, 2, 2, 2, 3, 3, 4, 4].map((day) => `2025-02-0${day}T12:00:00.000Z`);
      for (const [i, at] of times.entries()) {
        const id = await insertDecision(a.tenant.id, customer, i % 3 ? v : w, 'given', at);
        inserted.push({ decision_id: id, decided_at: at });
      }
      const expected = newestFirst(inserted).map((d) => d.decision_id);
      for (const limit of [1, 2, 3, 4, 10]) {
        const pages = await allPages(customer, limit);
        expect(pages).toHaveLength(Math.ceil(expected.length / limit));
        for (const page of pages.slice(0, -1)) expect(page.history).toHaveLength(limit);
        const ids = pages.flatMap((p) => p.history.map((h: any) => h.decision_id));
        expect(ids).toEqual(expected);
        // Every page carries the same standing per template.
        for (const page of pages) expect(page.templates).toEqual(pages[0].templates);
      }
    });

    it('when the last page is exactly full, its next_cursor is null', async () => {
      const v = await publish(t.db, a.tenant.id, await seedTemplate(t.db, a.tenant.id));
      const customer = unique('c');
      for (const day of [1, 2, 3, 4]) {
        await insertDecision(a.tenant.id, customer, v, 'given', `2025-03-0${day}T00:00:00.000Z`);
      }
      const exact = json(await consents(customer, { limit: '4' })).data;
      expect(exact.history).toHaveLength(4);
      expect(exact.next_cursor).toBeNull();
      const short = json(await consents(customer, { limit: '3' })).data;
      expect(short.history).toHaveLength(3);
      expect(typeof short.next_cursor).toBe('string');
      const rest = json(await consents(customer, { limit: '3', cursor: short.next_cursor })).data;
      expect(rest.history.map((h: any) => h.decided_at)).toEqual(['2025-03-01T00:00:00.000Z']);
      expect(rest.next_cursor).toBeNull();
    });

    it('a decision recorded between two pages does not shift the next page', async () => {
      const v = await publish(t.db, a.tenant.id, await seedTemplate(t.db, a.tenant.id));
      const customer = unique('c');
      const ids: string[] = [];
      for (const day of [1, 2, 3, 4]) {
        ids.push(
          await insertDecision(a.tenant.id, customer, v, 'given', `2025-04-0${day}T00:00:00.000Z`),
        );
      }
      const page1 = json(await consents(customer, { limit: '2' })).data;
      expect(page1.history.map((h: any) => h.decision_id)).toEqual([ids[3], ids[2]]);
      await api.decide(customer, v.consent_version_id, 'reject');
      const page2 = json(await consents(customer, { limit: '2', cursor: page1.next_cursor })).data;
      expect(page2.history.map((h: any) => h.decision_id)).toEqual([ids[1], ids[0]]);
      expect(page2.next_cursor).toBeNull();
      // The new decision is at the head of a fresh first page.
      const fresh = json(await consents(customer, { limit: '1' })).data;
      expect(fresh.history[0].decision).toBe('reject');
    });

    it('asked at once for several customers, pages and limits, each answer is its own', async () => {
      // On PostgreSQL the reads of one turn of the event loop share one statement.
      const code = await seedTemplate(t.db, a.tenant.id);
      const v = await publish(t.db, a.tenant.id, code);
      const otherCode = await seedTemplate(t.db, a.tenant.id);
      const w = await publish(t.db, a.tenant.id, otherCode);
      const [many, one, never] = [unique('c'), unique('c'), unique('c')];
      const ids: string[] = [];
      for (const day of [1, 2, 3, 4]) {
        ids.push(
          await insertDecision(a.tenant.id, many, v, 'given', `2025-05-0${day}T00:00:00.000Z`),
        );
      }
      const onlyOne = await insertDecision(
        a.tenant.id,
        one,
        w,
        'reject',
        '2025-05-09T00:00:00.000Z',
      );
      // The other tenant's customer of the same id.
      const bCode = await seedTemplate(t.db, b.tenant.id);
      const bVersion = await publish(t.db, b.tenant.id, bCode);
      const theirs = await insertDecision(
        b.tenant.id,
        many,
        bVersion,
        'withdraw',
        '2025-05-10T00:00:00.000Z',
      );
      const cursor = json(await consents(many, { limit: '2' })).data.next_cursor;
      const answers = await Promise.all([
        consents(many, { limit: '2' }),
        consents(never),
        consents(many, { limit: '2', cursor }),
        consents(one, { limit: '5' }),
        consents(many, { limit: '3' }),
        consents(many, {}, b.headers),
      ]);
      const pages = answers.map((response) => {
        expect(response.statusCode).toBe(200);
        const data = json(response).data;
        return {
          ids: data.history.map((h: any) => h.decision_id),
          templates: data.templates.map((s: any) => s.template_code),
          more: data.next_cursor !== null,
        };
      });
      expect(pages).toEqual([
        { ids: [ids[3], ids[2]], templates: [code], more: true },
        { ids: [], templates: [], more: false },
        { ids: [ids[1], ids[0]], templates: [code], more: false },
        { ids: [onlyOne], templates: [otherCode], more: false },
        { ids: [ids[3], ids[2], ids[1]], templates: [code], more: true },
        { ids: [theirs], templates: [bCode], more: false },
      ]);
    });

    it('answers 100 decisions per page by default, and up to 500 with limit', async () => {
      const v = await publish(t.db, a.tenant.id, await seedTemplate(t.db, a.tenant.id));
      const customer = unique('c');
      const start = Date.parse('2025-05-01T00:00:00.000Z');
      for (let i = 0; i < 101; i += 1) {
        const at = new Date(start + i * 1000).toISOString();
        await insertDecision(a.tenant.id, customer, v, 'given', at);
      }
      const first = json(await consents(customer)).data;
      expect(first.history).toHaveLength(100);
      expect(typeof first.next_cursor).toBe('string');
      const second = json(await consents(customer, { cursor: first.next_cursor })).data;
      expect(second.history).toHaveLength(1);
      expect(second.history[0].decided_at).toBe('2025-05-01T00:00:00.000Z');
      expect(second.next_cursor).toBeNull();
      const all = json(await consents(customer, { limit: '500' })).data;
      expect(all.history).toHaveLength(101);
      expect(all.next_cursor).toBeNull();
    });

    it('accepted says what pending says: false once a newer version is out, true after any decision on it', async () => {
      const code = await seedTemplate(t.db, a.tenant.id);
      const v1 = await publish(t.db, a.tenant.id, code);
      const customer = unique('c');
      await api.decide(customer, v1.consent_version_id, 'given');
      const standing = async () => json(await consents(customer)).data.templates[0];
      expect((await standing()).accepted).toBe(true);
      const v2 = await publish(t.db, a.tenant.id, code);
      const pendingAfterPublish = async () => json(await api.pending(customer, code)).data;
      // `pending` may take up to a second to see the publish (cached); wait for it to agree.
      for (let i = 0; i < 100; i += 1) {
        if ((await pendingAfterPublish()).consent_version.version === 2) break;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect((await standing()).accepted).toBe(false);
      expect((await pendingAfterPublish()).accepted).toBe(false);
      expect((await standing()).latest_version.version).toBe(2);
      // A withdraw counts as a decision on the version it names, as in pending.
      await api.decide(customer, v2.consent_version_id, 'withdraw');
      expect(await standing()).toMatchObject({
        accepted: true,
        last_decision: { decision: 'withdraw', version: 2 },
      });
      expect((await pendingAfterPublish()).accepted).toBe(true);
      // A later decision on the older version leaves the one on the latest in place.
      await api.decide(customer, v1.consent_version_id, 'given');
      expect(await standing()).toMatchObject({
        accepted: true,
        last_decision: { decision: 'given', version: 1 },
      });
      expect((await pendingAfterPublish()).accepted).toBe(true);
    });

    it("another tenant's customer with the same id sees nothing of this one, and the other way round", async () => {
      const customer = unique('shared');
      const code = unique('same_code');
      await t.db
        .transaction()
        .execute((trx) => createTemplate(trx, a.tenant.id, { code, name: 'A' }));
      await t.db
        .transaction()
        .execute((trx) => createTemplate(trx, b.tenant.id, { code, name: 'B' }));
      const va = await publish(t.db, a.tenant.id, code);
      const vb = await publish(t.db, b.tenant.id, code);
      await api.decide(customer, va.consent_version_id, 'given');
      const forB = json(await consents(customer, {}, b.headers)).data;
      expect(forB).toEqual({
        customer_id: customer,
        templates: [],
        history: [],
        next_cursor: null,
      });

      await apiOf(t.app, b.headers).decide(customer, vb.consent_version_id, 'reject');
      const forA = json(await consents(customer)).data;
      expect(forA.history).toHaveLength(1);
      expect(forA.history[0]).toMatchObject({
        consent_version_id: va.consent_version_id,
        decision: 'given',
      });
      expect(forA.templates).toHaveLength(1);
      expect(forA.templates[0].latest_version.consent_version_id).toBe(va.consent_version_id);
      const againB = json(await consents(customer, {}, b.headers)).data;
      expect(againB.history.map((h: any) => h.decision)).toEqual(['reject']);
    });

    it("a cursor from another tenant's page reads only this tenant's decisions", async () => {
      const customer = unique('shared');
      const va = await publish(t.db, a.tenant.id, await seedTemplate(t.db, a.tenant.id));
      const vb = await publish(t.db, b.tenant.id, await seedTemplate(t.db, b.tenant.id));
      for (const day of [1, 2]) {
        await insertDecision(a.tenant.id, customer, va, 'given', `2025-06-0${day}T00:00:00.000Z`);
        await insertDecision(b.tenant.id, customer, vb, 'given', `2025-06-0${day}T00:00:00.000Z`);
      }
      const pageB = json(await consents(customer, { limit: '1' }, b.headers)).data;
      const withB = json(await consents(customer, { limit: '5', cursor: pageB.next_cursor })).data;
      for (const entry of withB.history) {
        expect(entry.consent_version_id).toBe(va.consent_version_id);
      }
    });

    it.each([['0'], ['501'], ['-1'], ['1.5'], ['01'], ['ten'], [''], ['1e2']])(
      'limit=%j answers 400 1001 naming querystring.limit',
      async (limit) => {
        expectInvalid(await consents(unique('c'), { limit }), 'querystring.limit');
      },
    );

    it('limit=1 and limit=500 are accepted', async () => {
      for (const limit of ['1', '500']) {
        expect((await consents(unique('c'), { limit })).statusCode).toBe(200);
      }
    });

    it('a malformed or tampered cursor answers 400 1001 naming querystring.cursor', async () => {
      const v = await publish(t.db, a.tenant.id, await seedTemplate(t.db, a.tenant.id));
      const customer = unique('c');
      for (const day of [1, 2]) {
        await insertDecision(a.tenant.id, customer, v, 'given', `2025-07-0${day}T00:00:00.000Z`);
      }
      const cursor: string = json(await consents(customer, { limit: '1' })).data.next_cursor;
      const flip = (s: string, i: number) =>
        s.slice(0, i) + (s[i] === 'A' ? 'B' : 'A') + s.slice(i + 1);
      const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
      const bad = [
        '',
        'abc',
        'not a cursor',
        `${cursor}=`,
        `${cursor}A`,
        flip(cursor, 0),
        flip(cursor, 10),
        flip(cursor, cursor.length - 1),
        'x'.repeat(201),
        b64(['2025-07-01T00:00:00.000Z']),
        b64(['2025-07-01', newId()]),
        b64(['2025-07-01T00:00:00.000Z', 'not-an-id']),
        b64({ decided_at: '2025-07-01T00:00:00.000Z', id: newId() }),
        b64([1, 2]),
        // Well-formed, but not as the service writes it (a space in the JSON).
        Buffer.from(`["2025-07-01T00:00:00.000Z", "${newId()}"]`).toString('base64url'),
        Buffer.from(JSON.stringify(['2025-07-01T00:00:00.000Z', newId()])).toString('base64'),
      ];
      for (const candidate of bad) {
        expectInvalid(await consents(customer, { cursor: candidate }), 'querystring.cursor');
      }
      // The cursor as given still works.
      expect((await consents(customer, { cursor })).statusCode).toBe(200);
    });

    it('an unknown query parameter answers 400 1001', async () => {
      const response = await consents(unique('c'), { offset: '10' });
      expectInvalid(response, 'querystring.offset');
      expect(json(response).details).toContainEqual({
        field: 'querystring.offset',
        issue: 'is not allowed',
      });
    });

    it('a malformed customer_id answers 400 1001 naming params.customer_id', async () => {
      for (const customer of ['a b', 'x'.repeat(129), 'ünï', 'a/b', 'สมชาย']) {
        const response = await t.app.inject({
          method: 'GET',
          url: `/api/v1/customers/${encodeURIComponent(customer)}/consents`,
          headers: a.headers,
        });
        expectInvalid(response, 'params.customer_id');
      }
    });

    it('without a key, or with an unknown one, answers 401 1002 whatever else is wrong', async () => {
      const keyless: Record<string, string>[] = [{}, { 'x-system-api-key': 'csk_nope' }];
      const queries: Record<string, string>[] = [{}, { limit: '0', cursor: '!' }];
      for (const headers of keyless) {
        for (const query of queries) {
          const response = await consents('c1', query, headers);
          expect(response.statusCode).toBe(401);
          expect(expectErrorShape(response)).toEqual({ code: '1002', message: 'Unauthorized.' });
        }
      }
    });

    it('another method answers 405 1011 with Allow', async () => {
      const response = await t.app.inject({
        method: 'POST',
        url: '/api/v1/customers/c1/consents',
        headers: { ...a.headers, 'content-type': 'application/json' },
        payload: {},
      });
      expect(response.statusCode).toBe(405);
      expect(expectErrorShape(response).code).toBe('1011');
      expect(String(response.headers.allow)).toMatch(/GET/);
    });
  });

  describe('GET /api/v1/customers/{customer_id}/consents/templates/{template_code}/as-of', () => {
    /**
     * One customer on one template: v1 published 2025-01-01, given on v1 2025-02-01, v2 published
     * 2025-03-01, reject on v2 2025-04-01, given on v1 again 2025-05-01.
     */
    async function timeline() {
      const code = await seedTemplate(t.db, a.tenant.id);
      const content1 = '<p>terms, first edition</p>';
      const content2 = '<p>terms, second edition</p>';
      const v1 = await setPublishedAt(
        a.tenant.id,
        await publish(t.db, a.tenant.id, code, { content_html: content1 }),
        '2025-01-01T00:00:00.000Z',
      );
      const v2 = await setPublishedAt(
        a.tenant.id,
        await publish(t.db, a.tenant.id, code, { content_html: content2 }),
        '2025-03-01T00:00:00.000Z',
      );
      const customer = unique('c');
      const given = await insertDecision(
        a.tenant.id,
        customer,
        v1,
        'given',
        '2025-02-01T00:00:00.000Z',
      );
      const reject = await insertDecision(
        a.tenant.id,
        customer,
        v2,
        'reject',
        '2025-04-01T00:00:00.000Z',
      );
      const givenAgain = await insertDecision(
        a.tenant.id,
        customer,
        v1,
        'given',
        '2025-05-01T00:00:00.000Z',
      );
      return { code, v1, v2, customer, given, reject, givenAgain, content1, content2 };
    }

    const versionAt = (v: PublishedVersion) => ({
      consent_version_id: v.consent_version_id,
      version: v.version,
      tag: v.tag,
      published_at: v.published_at,
    });

    it('before the first version: no decision, no version, not accepted', async () => {
      const { code, customer } = await timeline();
      const response = await asOf(customer, code, { at: '2024-12-31T23:59:59.999Z' });
      expect(response.statusCode).toBe(200);
      expect(response.headers['cache-control']).toBe('no-store');
      const body = json(response);
      expect(Object.keys(body)).toEqual(['data']);
      expect(body.data).toEqual({
        customer_id: customer,
        template_code: code,
        at: '2024-12-31T23:59:59.999Z',
        decision: null,
        latest_version: null,
        accepted: false,
      });
    });

    it('after the first version, before any decision: that version, decision null, not accepted', async () => {
      const { code, customer, v1 } = await timeline();
      const data = json(await asOf(customer, code, { at: '2025-01-15T00:00:00Z' })).data;
      expect(data).toEqual({
        customer_id: customer,
        template_code: code,
        at: '2025-01-15T00:00:00.000Z',
        decision: null,
        latest_version: versionAt(v1),
        accepted: false,
      });
    });

    it('at the very moment of a decision, counts it (at or before), with its evidence hash', async () => {
      const { code, customer, v1, given, content1 } = await timeline();
      const data = json(await asOf(customer, code, { at: '2025-02-01T00:00:00.000Z' })).data;
      expect(data).toEqual({
        customer_id: customer,
        template_code: code,
        at: '2025-02-01T00:00:00.000Z',
        decision: {
          decision_id: given,
          decision: 'given',
          decided_at: '2025-02-01T00:00:00.000Z',
          consent_version_id: v1.consent_version_id,
          version: 1,
          tag: v1.tag,
          content_sha256: sha256Hex(content1),
        },
        latest_version: versionAt(v1),
        accepted: true,
      });
    });

    it('reads `at` in its own time zone: one millisecond before the decision sees none', async () => {
      const { code, customer, given } = await timeline();
      const before = json(await asOf(customer, code, { at: '2025-02-01T00:59:59.999+01:00' })).data;
      expect(before.at).toBe('2025-01-31T23:59:59.999Z');
      expect(before.decision).toBeNull();
      const same = json(await asOf(customer, code, { at: '2025-02-01T01:00:00+01:00' })).data;
      expect(same.at).toBe('2025-02-01T00:00:00.000Z');
      expect(same.decision.decision_id).toBe(given);
      const west = json(await asOf(customer, code, { at: '2025-01-31T19:00:00-05:00' })).data;
      expect(west.decision.decision_id).toBe(given);
    });

    it('after a newer version is out, before deciding on it: the old decision, the new version, not accepted', async () => {
      const { code, customer, v2, given } = await timeline();
      const data = json(await asOf(customer, code, { at: '2025-03-15T00:00:00Z' })).data;
      expect(data.decision).toMatchObject({ decision_id: given, decision: 'given', version: 1 });
      expect(data.latest_version).toEqual(versionAt(v2));
      expect(data.accepted).toBe(false);
    });

    it('after deciding on the newer version: that decision, accepted', async () => {
      const { code, customer, v2, reject, content2 } = await timeline();
      const data = json(await asOf(customer, code, { at: '2025-04-15T00:00:00Z' })).data;
      expect(data.decision).toEqual({
        decision_id: reject,
        decision: 'reject',
        decided_at: '2025-04-01T00:00:00.000Z',
        consent_version_id: v2.consent_version_id,
        version: 2,
        tag: v2.tag,
        content_sha256: sha256Hex(content2),
      });
      expect(data.latest_version).toEqual(versionAt(v2));
      expect(data.accepted).toBe(true);
    });

    it('a later decision on an older version is the most recent one, and the customer stays accepted', async () => {
      const { code, customer, v1, v2, givenAgain } = await timeline();
      const data = json(await asOf(customer, code, { at: '2025-06-01T00:00:00Z' })).data;
      expect(data.decision).toMatchObject({
        decision_id: givenAgain,
        consent_version_id: v1.consent_version_id,
        version: 1,
      });
      expect(data.latest_version.consent_version_id).toBe(v2.consent_version_id);
      expect(data.accepted).toBe(true);
    });

    it('far in the future, answers the state now', async () => {
      const { code, customer, givenAgain } = await timeline();
      const data = json(await asOf(customer, code, { at: '9999-12-31T23:59:59-01:00' })).data;
      expect(data.at).toBe('9999-12-31T23:59:59.999Z');
      expect(data.decision.decision_id).toBe(givenAgain);
      const early = json(await asOf(customer, code, { at: '0000-01-01T00:30:00+01:00' })).data;
      expect(early.at).toBe('0000-01-01T00:00:00.000Z');
      expect(early.decision).toBeNull();
    });

    it('of two decisions at the same instant, the one recorded last is the most recent', async () => {
      const code = await seedTemplate(t.db, a.tenant.id);
      const v = await publish(t.db, a.tenant.id, code);
      const customer = unique('c');
      const at = '2025-08-01T00:00:00.000Z';
      // Ids that sort against the order of recording: neither the clock nor the id decides.
      const ids = [newId(), newId(), newId(), newId()].reverse();
      const decisions = ['given', 'reject', 'given', 'reject'] as const;
      for (const [i, decision] of decisions.entries()) {
        await insertDecision(a.tenant.id, customer, v, decision, at, ids[i]);
      }
      const data = json(await asOf(customer, code, { at })).data;
      expect(data.decision.decision_id).toBe(ids[3]);
      expect(data.decision.decision).toBe('reject');
    });

    it('follows decisions made through the API', async () => {
      const code = await seedTemplate(t.db, a.tenant.id);
      const v = await publish(t.db, a.tenant.id, code);
      const customer = unique('c');
      const recorded = json(await api.decide(customer, v.consent_version_id, 'given')).data;
      const just = json(await asOf(customer, code, { at: recorded.decided_at })).data;
      expect(just).toMatchObject({
        decision: { decision_id: recorded.decision_id, decision: 'given' },
        latest_version: { consent_version_id: v.consent_version_id, published_at: v.published_at },
        accepted: true,
      });
      expect(just.at).toMatch(storedTime);
      const earlier = new Date(Date.parse(recorded.decided_at) - 1).toISOString();
      const before = json(await asOf(customer, code, { at: earlier })).data;
      expect(before.decision).toBeNull();
      expect(before.accepted).toBe(false);
    });

    it('for a customer never seen, answers decision null and not accepted (not 404)', async () => {
      const code = await seedTemplate(t.db, a.tenant.id);
      await publish(t.db, a.tenant.id, code);
      const response = await asOf(unique('nobody'), code, { at: '2999-01-01T00:00:00Z' });
      expect(response.statusCode).toBe(200);
      expect(json(response).data).toMatchObject({ decision: null, accepted: false });
    });

    it('an unknown template answers 404 1004 Template not found.', async () => {
      const response = await asOf('c1', unique('missing'), { at: '2025-01-01T00:00:00Z' });
      expect(response.statusCode).toBe(404);
      expect(expectErrorShape(response)).toEqual({ code: '1004', message: 'Template not found.' });
    });

    it('a template with no published version answers 404 1004, as pending does', async () => {
      const code = await seedTemplate(t.db, a.tenant.id);
      await t.db.transaction().execute(async (trx) =>
        createDraftVersion(trx, await getTemplateByCode(trx, a.tenant.id, code), {
          tag: '1.0',
          content_html: '<p>draft</p>',
        }),
      );
      const response = await asOf('c1', code, { at: '2999-01-01T00:00:00Z' });
      expect(response.statusCode).toBe(404);
      expect(expectErrorShape(response).code).toBe('1004');
    });

    it("another tenant's template or decisions are not seen", async () => {
      const { code, customer } = await timeline();
      // Tenant B has no template with this code.
      const unknown = await asOf(customer, code, { at: '2025-06-01T00:00:00Z' }, b.headers);
      expect(unknown.statusCode).toBe(404);
      // With its own template of the same code, B sees only its own record of the customer.
      await t.db
        .transaction()
        .execute((trx) => createTemplate(trx, b.tenant.id, { code, name: 'B' }));
      const vb = await publish(t.db, b.tenant.id, code);
      // The 404 above may be remembered for up to the contract's publish-visibility bound.
      const response = await withinPublishBound(
        () => asOf(customer, code, { at: '2999-01-01T00:00:00Z' }, b.headers),
        (r) => r.statusCode === 200,
      );
      const data = json(response).data;
      expect(data.decision).toBeNull();
      expect(data.accepted).toBe(false);
      expect(data.latest_version.consent_version_id).toBe(vb.consent_version_id);
    });

    it.each([
      ['2025-02-01'],
      ['2025-02-01T00:00:00'],
      ['2025-02-01T00:00Z'],
      ['2025-02-01 00:00:00Z'],
      ['2025-02-01t00:00:00z'],
      ['2025-02-30T00:00:00Z'],
      ['2025-13-01T00:00:00Z'],
      ['2025-02-01T24:00:00Z'],
      ['2025-02-01T23:59:60Z'],
      ['2025-02-01T00:00:00+0100'],
      ['2025-02-01T00:00:00+01'],
      ['2025-02-01T00:00:00.Z'],
      ['+002025-02-01T00:00:00Z'],
      ['1738368000'],
      ['yesterday'],
      [''],
    ])('at=%j answers 400 1001 naming querystring.at', async (at) => {
      const code = await seedTemplate(t.db, a.tenant.id);
      await publish(t.db, a.tenant.id, code);
      expectInvalid(await asOf('c1', code, { at }), 'querystring.at');
    });

    it('a "+" offset left unencoded in the URL is read as a space, so it is refused (400 1001)', async () => {
      const code = await seedTemplate(t.db, a.tenant.id);
      await publish(t.db, a.tenant.id, code);
      const response = await t.app.inject({
        method: 'GET',
        url: `/api/v1/customers/c1/consents/templates/${code}/as-of?at=2025-02-01T00:00:00+01:00`,
        headers: a.headers,
      });
      expectInvalid(response, 'querystring.at');
    });

    it('without at, or with another parameter, answers 400 1001', async () => {
      const code = await seedTemplate(t.db, a.tenant.id);
      await publish(t.db, a.tenant.id, code);
      const missing = await asOf('c1', code, {});
      expectInvalid(missing, 'querystring.at');
      expect(json(missing).details).toContainEqual({
        field: 'querystring.at',
        issue: 'is required',
      });
      expectInvalid(
        await asOf('c1', code, { at: '2025-01-01T00:00:00Z', limit: '1' }),
        'querystring.limit',
      );
    });

    it('a malformed customer_id or template code answers 400 1001 before looking anything up', async () => {
      expectInvalid(
        await asOf('a b', unique('missing'), { at: '2025-01-01T00:00:00Z' }),
        'params.customer_id',
      );
      expectInvalid(
        await asOf('c1', '-starts-with-a-dash', { at: '2025-01-01T00:00:00Z' }),
        'params.template_code',
      );
      expectInvalid(
        await asOf('c1', 'x'.repeat(65), { at: '2025-01-01T00:00:00Z' }),
        'params.template_code',
      );
    });

    it('without a key answers 401 1002 whatever else is wrong', async () => {
      const keyless: Record<string, string>[] = [{}, { 'x-system-api-key': 'csk_nope' }];
      for (const headers of keyless) {
        const response = await asOf('a b', '-bad', { at: 'nope' }, headers);
        expect(response.statusCode).toBe(401);
        expect(expectErrorShape(response)).toEqual({ code: '1002', message: 'Unauthorized.' });
      }
    });
  });

  describe('OpenAPI', () => {
    it('documents both endpoints with their query parameters and the API key', async () => {
      const doc = json(await t.app.inject({ method: 'GET', url: '/api/docs/json' }));
      const list = doc.paths['/api/v1/customers/{customer_id}/consents']?.get;
      const at =
        doc.paths['/api/v1/customers/{customer_id}/consents/templates/{template_code}/as-of']?.get;
      expect(list).toBeDefined();
      expect(at).toBeDefined();
      const names = (op: any, where: string) =>
        (op.parameters as any[])
          .filter((p) => p.in === where)
          .map((p) => p.name)
          .sort();
      expect(names(list, 'query')).toEqual(['cursor', 'include', 'limit', 'locale']);
      expect(names(list, 'path')).toEqual(['customer_id']);
      expect(names(at, 'query')).toEqual(['at', 'locale']);
      expect(names(at, 'path')).toEqual(['customer_id', 'template_code']);
      for (const op of [list, at]) {
        expect(op.security).toEqual([{ apiKey: [] }]);
        expect(Object.keys(op.responses)).toContain('200');
      }
      const data = list.responses['200'].content['application/json'].schema.properties.data;
      expect(Object.keys(data.properties).sort()).toEqual([
        'controls',
        'customer_id',
        'history',
        'next_cursor',
        'templates',
      ]);
      // `controls` only with `include=controls`: the four others are always there.
      expect([...data.required].sort()).toEqual([
        'customer_id',
        'history',
        'next_cursor',
        'templates',
      ]);
    });
  });
});
