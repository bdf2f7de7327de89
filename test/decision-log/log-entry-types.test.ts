/**
 * PostgreSQL's log entries (`tlog_entries`) with their leaf's hash as 32 bytes of `bytea`
 * instead of 64 hex digits of text, and the time each was logged as `timestamptz` instead of 24
 * characters of ISO text. The service runs on a store of either form (`LogEntryTypes`,
 * src/platform/id-type.ts): a `bytea` reads as the lowercase hex every store's hashes are,
 * whatever the session's `bytea_output`; one scripted session of the public API answers byte for
 * byte alike on both but for ids, times and hashes, its receipts verify, the audit is clean, and
 * the entries read back in the same forms.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findEntriesByRecords } from '../../src/decision-log/repository.js';
import { knownTypes, resolveIdType } from '../../src/platform/id-type.js';
import { placeheld, reads, session } from '../helpers/api-session.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { postgresBinaryLeavesStore } from '../helpers/schema-history.js';
import { postgresStore } from '../helpers/stores.js';

const isoTime = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const hash = /^[0-9a-f]{64}$/;

describe('PostgreSQL log entries whose leaves are text and bytea', () => {
  let onText: TestApp;
  let onBinary: TestApp;
  beforeAll(async () => {
    onText = await startTestApp(postgresStore);
    onBinary = await startTestApp(postgresBinaryLeavesStore);
  });
  afterAll(async () => {
    await onText?.close();
    await onBinary?.close();
  });

  it('the service reads the columns types from the store', async () => {
    const { rows } = await sql<{ column_name: string; data_type: string }>`
      select column_name, data_type from information_schema.columns
      where table_schema = current_schema() and table_name = 'tlog_entries'
        and column_name in ('leaf', 'integrated_at')
      order by column_name`.execute(onBinary.db);
    expect(rows).toEqual([
      { column_name: 'integrated_at', data_type: 'timestamp with time zone' },
      { column_name: 'leaf', data_type: 'bytea' },
    ]);
    await resolveIdType(onBinary.db);
    await resolveIdType(onText.db);
    expect(knownTypes(onBinary.db)?.log).toEqual({ leaf: 'bytea', time: 'timestamptz' });
    expect(knownTypes(onText.db)?.log).toEqual({ leaf: 'text', time: 'text' });
  });

  it('reads a bytea as lowercase hex whatever the session writes it as', async () => {
    for (const output of ['hex', 'escape']) {
      await onBinary.db.connection().execute(async (connection) => {
        await sql`select set_config('bytea_output', ${output}, false)`.execute(connection);
        const { rows } = await sql<{ bytes: unknown; empty: unknown }>`
          select '\\x00ff5c41'::bytea as bytes, ''::bytea as empty`.execute(connection);
        await sql`reset bytea_output`.execute(connection);
        expect(rows).toEqual([{ bytes: '00ff5c41', empty: '' }]);
      });
    }
  });

  it('a scripted session answers byte for byte alike on both; receipts verify, the audit is clean; the entries read alike', async () => {
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

    // Every leaf is kept as its 32 bytes, and reads back as the hex of its hash.
    const sizes = await sql<{ size: number }>`
      select distinct octet_length(leaf) as size from tlog_entries`.execute(onBinary.db);
    expect(sizes.rows).toEqual([{ size: 32 }]);
    const ids = await onBinary.db
      .selectFrom('decisions')
      .select('id')
      .where('tenant_id', '=', binary.tenantId)
      .execute();
    const entries = await findEntriesByRecords(
      onBinary.db,
      binary.tenantId,
      ids.map((row) => row.id),
    );
    expect(entries.length).toBe(ids.length);
    for (const entry of entries) expect(entry.leaf).toMatch(hash);
    const { rows: stored } = await sql<{ leaf: string; hex: string; integrated_at: string }>`
      select leaf, encode(leaf, 'hex') as hex, integrated_at from tlog_entries
      where log_id = ${binary.tenantId}`.execute(onBinary.db);
    for (const row of stored) {
      expect(row.leaf).toBe(row.hex);
      expect(row.integrated_at).toMatch(isoTime);
    }
  });
});
