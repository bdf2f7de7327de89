/**
 * PostgreSQL's subjects (`subjects`) with their keyed look-up (an HMAC of the customer's id) as
 * 32 bytes of `bytea` instead of 64 hex digits of text, in the row and in the key every request
 * finds its customer by (`subjects_lookup_uq`). The service runs on a store of either form
 * (`LookupType`, src/platform/id-type.ts): a look-up is given as hex and decoded in the statement
 * for a `bytea` column, and reads back as the same hex. One scripted session of the public API
 * (decisions, `pending`, history, a channel's block, bulk status, a cookie choice) answers byte
 * for byte alike on both but for ids, times and hashes, its receipts verify and the audit is
 * clean; a customer is found again by their id, and erased.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registry } from '../../src/app/kinds.js';
import { eraseCustomer } from '../../src/erasure/service.js';
import { knownTypes, resolveIdType } from '../../src/platform/id-type.js';
import { apiOf } from '../helpers/api.js';
import { placeheld, reads, session } from '../helpers/api-session.js';
import { json, startTestApp, type TestApp } from '../helpers/app.js';
import { postgresBinaryLookupsStore } from '../helpers/schema-history.js';
import { postgresStore } from '../helpers/stores.js';

const by = { actorKind: 'operator', actor: 'test', ip: '127.0.0.1', userAgent: null } as const;

describe('PostgreSQL subjects whose look-ups are text and bytea', () => {
  let onText: TestApp;
  let onBinary: TestApp;
  beforeAll(async () => {
    onText = await startTestApp(postgresStore);
    onBinary = await startTestApp(postgresBinaryLookupsStore);
  });
  afterAll(async () => {
    await onText?.close();
    await onBinary?.close();
  });

  it('the service reads the column type from the store', async () => {
    const typeOf = async (t: TestApp) =>
      (
        await sql<{ data_type: string }>`select data_type from information_schema.columns
          where table_schema = current_schema() and table_name = 'subjects'
            and column_name = 'lookup'`.execute(t.db)
      ).rows[0]?.data_type;
    expect(await typeOf(onBinary)).toBe('bytea');
    expect(await typeOf(onText)).toBe('text');
    await resolveIdType(onBinary.db);
    await resolveIdType(onText.db);
    expect(knownTypes(onBinary.db)?.lookup).toBe('bytea');
    expect(knownTypes(onText.db)?.lookup).toBe('text');
  });

  it('a scripted session answers byte for byte alike on both; receipts verify, the audit is clean; the records read alike', async () => {
    const text = await session(onText);
    const binary = await session(onBinary);
    expect(binary.answers).toEqual(text.answers);
    expect(binary.receipts).toEqual([true, true]);
    expect(binary.audit).toMatchObject({ ok: true, findings: [] });
    expect(text.audit).toMatchObject({ ok: true, findings: [] });
    const now = new Date().toISOString();
    const again = async (t: TestApp, s: typeof text) =>
      placeheld((await reads(t, s, now)).map((line) => line.replaceAll(s.code, '<code>')));
    expect(await again(onBinary, binary)).toEqual(await again(onText, text));

    // Each look-up is kept as its 32 bytes, and reads back as the hex of the customer's HMAC.
    const { rows } = await sql<{ size: number; lookup: string; hex: string }>`
      select octet_length(lookup) as size, lookup, encode(lookup, 'hex') as hex from subjects
      where tenant_id = ${binary.tenantId}`.execute(onBinary.db);
    expect(rows.length).toBeGreaterThan(1);
    for (const row of rows) {
      expect(row.size).toBe(32);
      expect(row.lookup).toBe(row.hex);
    }
    const ann = onBinary.vault.lookup(binary.tenantId, 'ann');
    expect(rows.map((row) => row.lookup)).toContain(ann);

    // The customer found by their id again: a decision joins their history, then the erasure
    // finds and erases them.
    const api = apiOf(onBinary.app, binary.headers);
    const history = async () =>
      json(
        await onBinary.app.inject({
          method: 'GET',
          url: '/api/v1/customers/ann/consents?limit=50',
          headers: binary.headers,
        }),
      ).data.history as unknown[];
    const before = (await history()).length;
    expect(before).toBeGreaterThan(0);
    const { consent_version_id } = json(await api.latest(binary.code)).data;
    expect((await api.decide('ann', consent_version_id, 'withdraw')).statusCode).toBe(201);
    expect((await history()).length).toBe(before + 1);
    const erased = await eraseCustomer(
      onBinary.db,
      onBinary.vault,
      registry,
      binary.tenantId,
      'ann',
      by,
    );
    expect(erased).toMatchObject({ erased: true });
    const { rows: left } = await sql<{ lookup: string | null }>`
      select lookup from subjects where tenant_id = ${binary.tenantId} and lookup is null`.execute(
      onBinary.db,
    );
    expect(left.length).toBe(1);
  });
});
