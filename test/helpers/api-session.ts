/**
 * One scripted session of the public API (`session`: `latest`, `pending`, decisions with every
 * rule's answer, the history by its cursor, as-of, a channel change, bulk status, a cookie
 * choice and its retry, receipts) and the reads a client makes of its records again (`reads`),
 * each answer as `status body`: what tests of a store's form (its ids' type, its times' type)
 * compare between two stores, byte for byte but for ids, times, hashes and signatures.
 */
import { expect } from 'vitest';
import { registry } from '../../src/app/kinds.js';
import { auditLog } from '../../src/decision-log/audit.js';
import { createProduct } from '../../src/products/index.js';
import { parseVerifierKey, verifyReceipt } from '../../src/proof/index.js';
import { apiOf } from './api.js';
import { json, type TestApp, testLogKeys } from './app.js';
import { seedPublishedSystem } from './cookies.js';
import { publish, seedTemplate, seedTenant } from './seed.js';
import { byCli } from './webhook-receiver.js';

const uuid = /[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}/g;
const time = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z/g;
const hex = /\b[0-9a-f]{64}\b/g;
/** A checkpoint's root hash and signature. */
const base64 = /[A-Za-z0-9+/]{40,}={0,2}/g;

export interface Session {
  /** Every answer as `status body`, ids, times, hashes and signatures as numbered placeholders. */
  answers: string[];
  /** Whether each receipt asked for verified offline. */
  receipts: boolean[];
  audit: { ok: boolean; findings: unknown[] };
  /** What reads the session's records again: its tenant's headers, template and receipts. */
  tenantId: string;
  headers: Record<string, string>;
  code: string;
  receiptUrls: string[];
  receiptBodies: string[];
}

export async function session(t: TestApp): Promise<Session> {
  const a = await seedTenant(t.db);
  await t.db
    .transaction()
    .execute((trx) =>
      createProduct(trx, byCli(a.tenant.id), a.tenant.id, { code: 'savings', name: 'Savings' }),
    );
  const code = await seedTemplate(t.db, a.tenant.id);
  const v1 = await publish(t.db, a.tenant.id, code, { tag: '1.0', content_html: '<p>One</p>' });
  const v2 = await publish(t.db, a.tenant.id, code, {
    tag: '1.1',
    content_html: '<p>Two</p>',
    allow_reconsent: false,
  });
  const site = await seedPublishedSystem(t.db, a.tenant.id);
  const api = apiOf(t.app, a.headers);
  const call = (method: 'GET' | 'POST' | 'PUT', url: string, payload?: unknown) =>
    t.app.inject({
      method,
      url,
      headers: { ...a.headers, 'content-type': 'application/json' },
      ...(payload === undefined ? {} : { payload: JSON.stringify(payload) }),
    });

  const responses = [
    await api.latest(code),
    await api.pending('ann', code),
    await api.decide('ann', v1.consent_version_id, 'given'),
    await api.decide('ann', v2.consent_version_id.toUpperCase(), 'given'),
    await api.decide('ann', v2.consent_version_id, 'given'),
    await api.decide('ann', v2.consent_version_id, 'reject'),
    await api.decide('bob', v2.consent_version_id, 'withdraw'),
    await api.decide('bob', v2.consent_version_id, 'given'),
    await api.decide('bob', 'not-a-uuid', 'given'),
    await api.decide('bob', '01900000-0000-7000-8000-000000000000', 'given'),
    await api.pending('ann', code),
    await api.latest('nope'),
  ];
  const decisionId = json(responses[3]!).data.decision_id as string;
  const firstPage = await call('GET', '/api/v1/customers/ann/consents?limit=1');
  responses.push(
    firstPage,
    await call(
      'GET',
      `/api/v1/customers/ann/consents?limit=1&cursor=${encodeURIComponent(json(firstPage).data.next_cursor)}`,
    ),
    await call(
      'GET',
      `/api/v1/customers/ann/consents/templates/${code}/as-of?at=${encodeURIComponent(new Date().toISOString())}`,
    ),
    await call('PUT', '/api/v1/customers/ann/channels/savings/email', { blocked: true }),
    await call('GET', '/api/v1/customers/ann/channels'),
    await call('POST', '/api/v1/consents/status', {
      template_code: code,
      customer_ids: ['ann', 'bob', 'cay'],
      channel: { product_code: 'savings', channel: 'email' },
    }),
    await call('GET', '/api/v1/customers/ann/consents?include=controls'),
    await call('GET', '/api/v1/decisions/not-a-uuid/receipt'),
    await call('GET', '/api/v1/decisions/01900000-0000-7000-8000-000000000000/receipt'),
  );
  const choice = {
    event_id: '0f0e0d0c-0b0a-4908-8706-050403020100',
    visitor_id: 'b3c1a2d4-5e6f-4a7b-8c9d-0e1f2a3b4c5d',
    configuration_id: site.configurationId,
    configuration_version: site.version,
    method: 'accept-all',
    categories: {
      necessary: true,
      analytics: true,
      marketing: true,
      functional: true,
      personalization: true,
    },
    locale: 'en',
  };
  for (let i = 0; i < 2; i += 1) {
    responses.push(
      await t.app.inject({
        method: 'POST',
        url: `/cookies/v1/${site.scope}/decisions`,
        headers: { origin: 'https://www.bank.example', 'content-type': 'text/plain;charset=UTF-8' },
        payload: JSON.stringify(choice),
      }),
    );
  }
  const key = parseVerifierKey(testLogKeys.verifierKey);
  if (!key.ok) throw new Error(key.reason);
  const receipts: boolean[] = [];
  const receiptUrls = [
    `/api/v1/decisions/${decisionId}/receipt?wait=true`,
    `/api/v1/channel-changes/${json(responses[15]!).data.record_id}/receipt?wait=true`,
  ];
  const receiptBodies: string[] = [];
  for (const url of receiptUrls) {
    const receipt = await call('GET', url);
    receiptBodies.push(receipt.body);
    receipts.push(
      receipt.statusCode === 200 && verifyReceipt(json(receipt), [key.value], registry.formats).ok,
    );
  }
  const seen = new Map<string, string>();
  const placeholder = (value: string, kind: string) => {
    const known = seen.get(value.toLowerCase()) ?? `<${kind}${seen.size}>`;
    seen.set(value.toLowerCase(), known);
    return known;
  };
  return {
    answers: responses.map((r) =>
      `${r.statusCode} ${r.body}`
        .replaceAll(code, '<code>')
        .replace(/"next_cursor":"[^"]+"/g, '"next_cursor":"<cursor>"')
        .replace(uuid, (m) => placeholder(m, 'id'))
        .replace(time, (m) => placeholder(m, 'time'))
        .replace(hex, (m) => placeholder(m, 'hash'))
        .replace(base64, (m) => placeholder(m, 'signed')),
    ),
    receipts,
    audit: await auditLog(t.db, t.vault, registry, a.tenant.id),
    tenantId: a.tenant.id,
    headers: a.headers,
    code,
    receiptUrls,
    receiptBodies,
  };
}

/** The reads a client makes of a session's records, each as `status body`. */
export async function reads(t: TestApp, s: Session, at: string): Promise<string[]> {
  const api = apiOf(t.app, s.headers);
  const call = (method: 'GET' | 'POST', url: string, payload?: unknown) =>
    t.app.inject({
      method,
      url,
      headers: { ...s.headers, 'content-type': 'application/json' },
      ...(payload === undefined ? {} : { payload: JSON.stringify(payload) }),
    });
  const answers = [
    await api.latest(s.code),
    await api.pending('ann', s.code),
    await api.pending('bob', s.code),
    await call('GET', '/api/v1/customers/ann/consents?limit=50'),
    await call('GET', '/api/v1/customers/bob/consents?include=controls'),
    await call(
      'GET',
      `/api/v1/customers/ann/consents/templates/${s.code}/as-of?at=${encodeURIComponent(at)}`,
    ),
    await call('GET', '/api/v1/customers/ann/channels'),
    await call('POST', '/api/v1/consents/status', {
      template_code: s.code,
      customer_ids: ['ann', 'bob', 'cay'],
      channel: { product_code: 'savings', channel: 'email' },
    }),
  ];
  // Bulk status says when it was answered (`at`) and the log's checkpoint of that moment, which
  // a record still queued when it was asked (a control change, say) has grown since: the parts
  // that are not the records'.
  return answers.map((r) =>
    `${r.statusCode} ${r.body}`
      .replace(/^(200 \{"data":\{"template_code":"[^"]+","at":)"[^"]+"/, '$1"<now>"')
      .replace(/,"checkpoint":\{"origin":[^{}]*\}(?=\}\}$)/, ''),
  );
}

/**
 * A receipt's records and their places in the log (the decision's, and its version's
 * publication's), without what proves them against the log's size at the time of asking
 * (a proof, a checkpoint, a tree size), which grows as the log does: what a later fetch of the
 * same receipt must show again.
 */
export function receiptRecord(body: string): unknown {
  return withoutProofs(JSON.parse(body).data);
}

const proofOfTheMoment = new Set(['checkpoint', 'inclusion_proof', 'tree_size', 'tlog_proof']);

function withoutProofs(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutProofs);
  if (value === null || typeof value !== 'object') return value;
  const kept = Object.entries(value).filter(([key]) => !proofOfTheMoment.has(key));
  return Object.fromEntries(kept.map(([key, inner]) => [key, withoutProofs(inner)]));
}

/**
 * A store changed under a session's records (a migration) keeps them: the same reads answer the
 * same bytes as before it, each receipt is served again for the same records and leaves and
 * verifies, and the tenant's log passes its audit.
 */
export async function expectSameRecords(
  t: TestApp,
  before: Session,
  at: string,
  readsBefore: string[],
): Promise<void> {
  expect(await reads(t, before, at)).toEqual(readsBefore);
  const key = parseVerifierKey(testLogKeys.verifierKey);
  if (!key.ok) throw new Error(key.reason);
  for (const [i, url] of before.receiptUrls.entries()) {
    const receipt = await t.app.inject({ method: 'GET', url, headers: before.headers });
    expect(receipt.statusCode).toBe(200);
    expect(receiptRecord(receipt.body)).toEqual(receiptRecord(before.receiptBodies[i]!));
    expect(verifyReceipt(json(receipt), [key.value], registry.formats).ok).toBe(true);
  }
  expect(await auditLog(t.db, t.vault, registry, before.tenantId)).toMatchObject({
    ok: true,
    findings: [],
  });
}

/** Ids and times as numbered placeholders, as `session` makes them: two stores' reads compared. */
export function placeheld(lines: string[]): string[] {
  const seen = new Map<string, string>();
  const placeholder = (value: string, kind: string) => {
    const known = seen.get(value) ?? `<${kind}${seen.size}>`;
    seen.set(value, known);
    return known;
  };
  return lines.map((line) =>
    line.replace(uuid, (m) => placeholder(m, 'id')).replace(time, (m) => placeholder(m, 'time')),
  );
}
