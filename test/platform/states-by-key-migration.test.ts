import { randomBytes, randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { customerVersionState } from '../../src/decisions/pending-repository.js';
import { isPostgres } from '../../src/platform/db.js';
import { resolveIdType } from '../../src/platform/id-type.js';
import { migrateToLatest } from '../../src/platform/migrate.js';
import { testDataKey } from '../helpers/app.js';
import { migrateBefore } from '../helpers/schema-history.js';
import { sealedAsBase64 } from '../helpers/sealed.js';
import { stores, useBareStore } from '../helpers/stores.js';

/** The tables migration 0050 keeps in their key's order on SQLite, with their keys. */
const tables = {
  subjects: ['tenant_id', 'id'],
  customer_template_states: ['tenant_id', 'subject_id', 'template_id'],
  customer_version_states: ['tenant_id', 'subject_id', 'consent_version_id'],
  channel_states: ['tenant_id', 'subject_id', 'product_id', 'channel'],
  tlog_nodes: ['log_id', 'level', 'idx'],
} as const;
type Table = keyof typeof tables;

const customers = 1_500;

/** Rows as the service writes them: two templates, versions and channels a customer. */
function rowsOf(tenantId: string): Record<Table, Record<string, string | number>[]> {
  const templates = [randomUUID(), randomUUID()];
  const versions = [randomUUID(), randomUUID()];
  const rows: Record<Table, Record<string, string | number>[]> = {
    subjects: [],
    customer_template_states: [],
    customer_version_states: [],
    channel_states: [],
    tlog_nodes: [],
  };
  for (let c = 0; c < customers; c += 1) {
    // Random ids: the old tables hold them in the order they came, not the key's.
    const subjectId = randomUUID();
    rows.subjects.push({
      tenant_id: tenantId,
      id: subjectId,
      lookup: randomBytes(32).toString('base64'),
      wrapped_key: randomBytes(60).toString('base64'),
      salt: randomBytes(32).toString('base64'),
      commitment: randomBytes(32).toString('base64'),
      created_at: new Date(Date.UTC(2026, 0, 1) + c * 1000).toISOString(),
    });
    for (const [i, templateId] of templates.entries()) {
      const decidedAt = new Date(Date.UTC(2026, 0, 1) + c * 1000 + i).toISOString();
      const versionId = versions[i] as string;
      const decisionId = randomUUID();
      rows.customer_template_states.push({
        tenant_id: tenantId,
        subject_id: subjectId,
        template_id: templateId as string,
        decision_count: i + 1,
        last_decision_id: decisionId,
        last_decision: 'given',
        last_consent_version_id: versionId,
        last_decided_at: decidedAt,
      });
      rows.customer_version_states.push({
        tenant_id: tenantId,
        subject_id: subjectId,
        consent_version_id: versionId,
        last_decision_id: decisionId,
        last_decision: 'given',
        last_decided_at: decidedAt,
      });
      rows.channel_states.push({
        tenant_id: tenantId,
        subject_id: subjectId,
        product_id: templateId as string,
        channel: i === 0 ? 'email' : 'sms',
        blocked: i,
        change_id: randomUUID(),
        since: decidedAt,
      });
    }
  }
  for (let idx = 0; idx < customers; idx += 1) {
    rows.tlog_nodes.push({
      log_id: tenantId,
      // From level 6 up: migration 0068, which runs after, removes the nodes below.
      level: 6 + (idx % 3),
      idx,
      hash: Buffer.alloc(32, idx % 251).toString('hex'),
    });
  }
  return rows;
}

describe.each(stores)('migration 0050, on $name', (store) => {
  const bare = useBareStore(store);

  it('keeps every row, key and index of the customers’ subjects and states and the log’s nodes; on SQLite each table is stored once, by its key, and `pending` reads no subject row', async () => {
    const { db } = bare;
    await migrateBefore(db, '0050');

    const tenantId = randomUUID();
    const written = rowsOf(tenantId);
    for (const [table, rows] of Object.entries(written)) {
      for (let at = 0; at < rows.length; at += 200) {
        await sql`insert into ${sql.table(table)} ${sql.raw(`(${Object.keys(rows[0] ?? {}).join(', ')})`)}
          values ${sql.join(rows.slice(at, at + 200).map((row) => sql`(${sql.join(Object.values(row))})`))}`.execute(
          db,
        );
      }
    }
    // Each row as kept, its sealed fields as base64 whichever their type, in its key's order (one
    // tenant: the same order without it, which PostgreSQL's states no longer hold since 0071).
    const read = async (table: Table) =>
      (
        await sealedAsBase64(
          db,
          (
            await sql<Record<string, unknown>>`select * from ${sql.table(table)}
              order by ${sql.join(
                tables[table]
                  .filter((column) => table === 'tlog_nodes' || column !== 'tenant_id')
                  .map((column) => sql.ref(column)),
              )}`.execute(db)
          ).rows,
        )
      ).map((row) => ({ ...row, ...('level' in row ? { level: Number(row.level) } : {}) }));
    const pages = async (table: Table) =>
      Number(
        (
          await sql<{ n: number }>`select count(*) as n from dbstat
            where name in (select name from sqlite_master where tbl_name = ${table})`.execute(db)
        ).rows[0]?.n,
      );
    const sqlite = !isPostgres(db);
    const rowsBefore: Record<string, unknown[]> = {};
    const pagesBefore: Record<string, number> = {};
    const indexes = async (table: Table) =>
      (
        await sql<{ sql: string }>`select sql from sqlite_master where tbl_name = ${table}
          and type = 'index' and sql is not null order by name`.execute(db)
      ).rows;
    const indexesBefore: Record<string, unknown[]> = {};
    for (const table of Object.keys(tables) as Table[]) {
      rowsBefore[table] = await read(table);
      expect(rowsBefore[table]).toHaveLength(written[table].length);
      if (!sqlite) continue;
      pagesBefore[table] = await pages(table);
      indexesBefore[table] = await indexes(table);
    }

    expect(await migrateToLatest(db, testDataKey)).toContain('0050-sqlite-states-by-key');

    // The customers' states no longer name their tenant (migration 0071 on PostgreSQL, 0073 on
    // SQLite).
    const kept = (table: Table, row: Record<string, unknown>) => {
      if (!table.startsWith('customer_')) return row;
      const { tenant_id: _tenant, ...rest } = row;
      return rest;
    };
    for (const table of Object.keys(tables) as Table[]) {
      expect(await read(table), table).toEqual(
        (rowsBefore[table] as Record<string, unknown>[]).map((row) => kept(table, row)),
      );
      // The key still holds: the same key again is refused.
      const first = kept(table, written[table][0] as Record<string, string | number>);
      await expect(
        sql`insert into ${sql.table(table)} ${sql.raw(`(${Object.keys(first).join(', ')})`)}
          values (${sql.join(Object.values(first))})`.execute(db),
        table,
      ).rejects.toThrow(/unique|duplicate/i);
      if (!sqlite) continue;
      const { rows } = await sql<{ sql: string }>`select sql from sqlite_master
        where type = 'table' and name = ${table}`.execute(db);
      expect(rows[0]?.sql, table).toMatch(/\)\s*without rowid$/i);
      // Its indexes as they were, and no key kept apart any more.
      expect(await indexes(table), table).toEqual(indexesBefore[table]);
      const keys = await sql`select name from sqlite_master where tbl_name = ${table}
        and name like 'sqlite_autoindex_%'`.execute(db);
      expect(keys.rows, table).toEqual([]);
      // The key stored once instead of twice: 0.60 to 0.77 of the pages with these rows (the old
      // key filled in random order, as customers come), well under 0.8 whatever the ids. The
      // subjects' look-up index grows by their id instead of a row number, counted with them:
      // 0.93 of the pages, fewer all the same.
      const after = await pages(table);
      expect(after, `${table}: ${pagesBefore[table]} pages before, ${after} after`).toBeLessThan(
        (table === 'subjects' ? 1 : 0.8) * (pagesBefore[table] as number),
      );
    }
    if (!sqlite) return;
    // `pending` finds the subject's id in the look-up index and its state by the state's key: no
    // row of `subjects` read, one descent into `customer_version_states`.
    const state = written.customer_version_states[0] as Record<string, string>;
    const values = {
      tenantId,
      lookup: (written.subjects[0] as Record<string, string>).lookup as string,
      versionId: state.consent_version_id as string,
    };
    await resolveIdType(db);
    const statement = customerVersionState.bind(db, values);
    const plan = await db.executeQuery({
      ...statement,
      sql: `explain query plan ${statement.sql}`,
    });
    expect(plan.rows.map((row) => (row as { detail: string }).detail)).toEqual([
      'SEARCH s USING COVERING INDEX subjects_lookup_uq (tenant_id=? AND lookup=?)',
      'SEARCH cv USING PRIMARY KEY (subject_id=? AND consent_version_id=?)',
    ]);
    // And it answers: the first customer's state on their first version.
    expect(await customerVersionState.first(db, values)).toEqual({
      last_decision: 'given',
      last_decided_at: state.last_decided_at,
    });
  });
});
