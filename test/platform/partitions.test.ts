/**
 * Partitions by time on PostgreSQL (docs/postgresql.md, "Partitions by time"): `store partition`
 * splits the tables that grow without bound into a partition a month or a year, keeping their
 * rows, their indexes (a primary key with the time column added) and every answer; the service
 * goes on recording, reading and proving on them; the partitions ahead are made before a record
 * needs one, and a record that landed in the default partition moves into its own.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { timeTables } from '../../src/app/time-tables.js';
import { auditLog } from '../../src/decision-log/index.js';
import {
  keepPartitionsAhead,
  partitionByTime,
  partitionStates,
  partitionsFor,
} from '../../src/platform/partitions.js';
import { choose, standardChoice } from '../backoffice/cookies-support.js';
import { apiOf } from '../helpers/api.js';
import { json, startTestApp, type TestApp } from '../helpers/app.js';
import { seedPublishedSystem } from '../helpers/cookies.js';
import { insertDecisionAt } from '../helpers/decisions.js';
import { makeTempStore, runCli, type TempStore } from '../helpers/process.js';
import { publish, type SeededTenant, seedTemplate, seedTenant } from '../helpers/seed.js';
import { postgresStore, sqliteStore } from '../helpers/stores.js';

/** The tables the service partitions, in the order the command reports them. */
const partitioned = [
  'decisions',
  'cookie_decisions',
  'channel_changes',
  'partner_block_changes',
  'tlog_entries',
];

describe('the partitions of an interval', () => {
  it('months: from the first record to two past now, with bounds in the stored times’ format', () => {
    expect(
      partitionsFor(
        'decisions',
        new Date('2026-10-31T23:59:59.999Z'),
        new Date('2026-12-01T00:00:00.000Z'),
        'month',
      ),
    ).toEqual([
      {
        name: 'decisions_p2026_10',
        from: '2026-10-01T00:00:00.000Z',
        to: '2026-11-01T00:00:00.000Z',
      },
      {
        name: 'decisions_p2026_11',
        from: '2026-11-01T00:00:00.000Z',
        to: '2026-12-01T00:00:00.000Z',
      },
      {
        name: 'decisions_p2026_12',
        from: '2026-12-01T00:00:00.000Z',
        to: '2027-01-01T00:00:00.000Z',
      },
      {
        name: 'decisions_p2027_01',
        from: '2027-01-01T00:00:00.000Z',
        to: '2027-02-01T00:00:00.000Z',
      },
      {
        name: 'decisions_p2027_02',
        from: '2027-02-01T00:00:00.000Z',
        to: '2027-03-01T00:00:00.000Z',
      },
    ]);
  });

  it('years: a first record after now starts at now', () => {
    expect(
      partitionsFor(
        'tlog_entries',
        new Date('2031-01-01T00:00:00.000Z'),
        new Date('2026-12-31T23:59:59.999Z'),
        'year',
      ),
    ).toEqual([
      {
        name: 'tlog_entries_p2026',
        from: '2026-01-01T00:00:00.000Z',
        to: '2027-01-01T00:00:00.000Z',
      },
      {
        name: 'tlog_entries_p2027',
        from: '2027-01-01T00:00:00.000Z',
        to: '2028-01-01T00:00:00.000Z',
      },
      {
        name: 'tlog_entries_p2028',
        from: '2028-01-01T00:00:00.000Z',
        to: '2029-01-01T00:00:00.000Z',
      },
    ]);
  });
});

describe('store partition on the command line', () => {
  let pg: TempStore;
  let sqlite: TempStore;
  let cwd: string;
  const year = new Date().getUTCFullYear();

  beforeAll(async () => {
    pg = await makeTempStore(postgresStore);
    sqlite = await makeTempStore(sqliteStore);
    cwd = pg.dir;
  });
  afterAll(async () => {
    await pg.remove();
    await sqlite.remove();
  });

  it('partitions a PostgreSQL store by year: each table, its partitions to two years ahead and a default', async () => {
    const result = await runCli(
      ['store', 'partition', '--interval', 'year'],
      {
        DATABASE_URL: pg.databaseUrl,
      },
      { cwd },
    );
    expect(result.stderr).not.toMatch(/Error/);
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout);
    expect(report.interval).toBe('year');
    expect(report.tables).toEqual(
      partitioned.map((table) => ({
        table,
        column: expect.stringMatching(/^(decided_at|changed_at|integrated_at)$/),
        converted: true,
        rows: 0,
        partitions: [
          `${table}_p${year}`,
          `${table}_p${year + 1}`,
          `${table}_p${year + 2}`,
          `${table}_pdefault`,
        ],
      })),
    );
  });

  it('run again, it changes nothing; another interval is refused; `store partitions` shows them', async () => {
    const env = { DATABASE_URL: pg.databaseUrl };
    const again = await runCli(['store', 'partition', '--interval', 'year'], env, { cwd });
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout).tables.map((t: { converted: boolean }) => t.converted)).toEqual(
      partitioned.map(() => false),
    );
    const other = await runCli(['store', 'partition', '--interval', 'month'], env, { cwd });
    expect(other.code).toBe(1);
    expect(other.stderr).toContain("The store's tables are partitioned by year already.");
    const states = await runCli(['store', 'partitions'], env, { cwd });
    expect(states.code).toBe(0);
    const shown = JSON.parse(states.stdout);
    expect(shown.interval).toBe('year');
    expect(shown.tables[0]).toMatchObject({
      table: 'decisions',
      column: 'decided_at',
      partitioned: true,
      default_rows: 0,
    });
    expect(shown.tables[0].partitions[0]).toMatchObject({
      name: `decisions_p${year}`,
      from: `${year}-01-01T00:00:00.000Z`,
      to: `${year + 1}-01-01T00:00:00.000Z`,
    });
  });

  it('an interval other than month or year is a usage error; an SQLite store is refused', async () => {
    const week = await runCli(
      ['store', 'partition', '--interval', 'week'],
      {
        DATABASE_URL: pg.databaseUrl,
      },
      { cwd },
    );
    expect(week.code).toBe(2);
    expect(week.stderr).toContain('--interval is month or year.');
    const onSqlite = await runCli(['store', 'partition', '--interval', 'month'], {
      DATABASE_URL: sqlite.databaseUrl,
    });
    expect(onSqlite.code).toBe(1);
    expect(onSqlite.stderr).toContain('Partitions by time are for a PostgreSQL store');
  });
});

/** The first millisecond of the month `offset` months from now's (UTC). */
function monthStart(offset: number): Date {
  const now = new Date();
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + offset, 1));
}
const monthName = (table: string, at: Date) =>
  `${table}_p${at.getUTCFullYear()}_${String(at.getUTCMonth() + 1).padStart(2, '0')}`;

describe('a PostgreSQL store partitioned by month, with the service running on it', () => {
  let t: TestApp;
  let a: SeededTenant;
  let b: SeededTenant;
  let versionOfB: string;
  const decided: string[] = [];
  let lastOfPrevious: string;
  let firstOfThis: string;
  /** Customer 1's consents and history, answered before the tables changed. */
  let answeredBefore: string;

  beforeAll(async () => {
    t = await startTestApp(postgresStore);
    a = await seedTenant(t.db);
    const version = await publish(t.db, a.tenant.id, await seedTemplate(t.db, a.tenant.id));
    for (let i = 0; i < 4; i += 1) {
      const response = await apiOf(t.app, a.headers).decide(
        `customer-${i % 2}`,
        version.consent_version_id,
        i === 3 ? 'withdraw' : 'given',
      );
      expect(response.statusCode).toBe(201);
      decided.push(json(response).data.decision_id);
    }
    const site = await seedPublishedSystem(t.db, a.tenant.id);
    await choose(t.app, site, 'accept-all', standardChoice(true));
    // Another tenant's decisions dated on either side of this month's start.
    b = await seedTenant(t.db);
    versionOfB = (await publish(t.db, b.tenant.id, await seedTemplate(t.db, b.tenant.id)))
      .consent_version_id;
    const by = { tenantId: b.tenant.id, apiKeyId: b.apiKey.id };
    lastOfPrevious = await insertDecisionAt(
      t,
      by,
      'dated',
      versionOfB,
      'given',
      new Date(monthStart(0).getTime() - 1).toISOString(),
    );
    firstOfThis = await insertDecisionAt(
      t,
      by,
      'dated',
      versionOfB,
      'reject',
      monthStart(0).toISOString(),
    );
    // Every record of tenant a logged before the tables change.
    const receipt = await t.app.inject({
      method: 'GET',
      url: `/api/v1/decisions/${decided[3]}/receipt?wait=true`,
      headers: a.headers,
    });
    expect(receipt.statusCode).toBe(200);
    answeredBefore = (await apiOf(t.app, a.headers).consents('customer-1')).body;
    const report = await partitionByTime(t.db, timeTables(t.registry), 'month');
    expect(report.tables.map(({ table, converted }) => [table, converted])).toEqual(
      partitioned.map((table) => [table, true]),
    );
  });
  afterAll(async () => {
    await t?.close();
  });

  const partitionOf = async (table: string, id: string) => {
    const { rows } = await sql<{ partition: string }>`
      select tableoid::regclass::text as partition from ${sql.table(table)} where id = ${id}`.execute(
      t.db,
    );
    return rows.map((row) => row.partition);
  };

  it('every row is kept, each in the partition of its month', async () => {
    const counted = await t.db
      .selectFrom('decisions')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .executeTakeFirstOrThrow();
    expect(Number(counted.n)).toBe(6);
    expect(await partitionOf('decisions', lastOfPrevious)).toEqual([
      monthName('decisions', monthStart(-1)),
    ]);
    expect(await partitionOf('decisions', firstOfThis)).toEqual([
      monthName('decisions', monthStart(0)),
    ]);
    const cookies = await t.db
      .selectFrom('cookie_decisions')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .executeTakeFirstOrThrow();
    expect(Number(cookies.n)).toBe(1);
  });

  it('the primary key holds the time column; a unique index without it is a plain index', async () => {
    const { rows } = await sql<{ indexname: string; indexdef: string }>`
      select indexname, indexdef from pg_indexes where tablename = 'decisions' order by indexname`.execute(
      t.db,
    );
    expect(rows).toEqual([
      {
        indexname: 'decisions_customer_time_idx',
        indexdef:
          'CREATE INDEX decisions_customer_time_idx ON ONLY public.decisions USING btree (subject_id, decided_at)',
      },
      {
        indexname: 'decisions_decided_at_idx',
        indexdef:
          'CREATE INDEX decisions_decided_at_idx ON ONLY public.decisions USING btree (tenant_id, decided_at)',
      },
      {
        indexname: 'decisions_history_uq',
        indexdef:
          'CREATE INDEX decisions_history_uq ON ONLY public.decisions USING btree (subject_id, template_id, seq)',
      },
      {
        indexname: 'decisions_pk',
        indexdef:
          'CREATE UNIQUE INDEX decisions_pk ON ONLY public.decisions USING btree (id, decided_at)',
      },
    ]);
  });

  it('the service records, reads and proves on the partitioned tables; the log audits clean', async () => {
    const api = apiOf(t.app, a.headers);
    const version = await t.db
      .selectFrom('template_versions')
      .select('id')
      .where('tenant_id', '=', a.tenant.id)
      .executeTakeFirstOrThrow();
    const response = await api.decide('customer-0', version.id, 'given');
    expect(response.statusCode).toBe(201);
    const id = json(response).data.decision_id;
    expect(await partitionOf('decisions', id)).toEqual([monthName('decisions', monthStart(0))]);
    const history = await api.consents('customer-1');
    expect(history.statusCode).toBe(200);
    expect(history.body).toBe(answeredBefore);
    expect(json(history).data.history.map((h: { decision_id: string }) => h.decision_id)).toEqual([
      decided[3],
      decided[1],
    ]);
    const receipt = await t.app.inject({
      method: 'GET',
      url: `/api/v1/decisions/${id}/receipt?wait=true`,
      headers: a.headers,
    });
    expect(receipt.statusCode).toBe(200);
    // The version's publication, four decisions, the banner's publication, the visitor's choice
    // and this decision.
    expect(json(receipt).data.tree_size).toBe(8);
    const report = await auditLog(t.db, t.vault, t.registry, a.tenant.id);
    expect(report).toMatchObject({ ok: true, findings: [], entries: 8 });
  });

  it('the partitions ahead are made as time goes on, and a record in the default moves into its own', async () => {
    const tables = timeTables(t.registry);
    const later = monthStart(3);
    // Dated four months ahead: no partition holds it yet.
    const early = await insertDecisionAt(
      t,
      { tenantId: b.tenant.id, apiKeyId: b.apiKey.id },
      'dated',
      versionOfB,
      'given',
      monthStart(4).toISOString(),
    );
    expect(await partitionOf('decisions', early)).toEqual(['decisions_pdefault']);
    const made = await keepPartitionsAhead(t.db, tables, later);
    expect(made).toEqual(
      partitioned.flatMap((table) => [3, 4, 5].map((m) => monthName(table, monthStart(m)))),
    );
    expect(await partitionOf('decisions', early)).toEqual([monthName('decisions', monthStart(4))]);
    expect(await keepPartitionsAhead(t.db, tables, later)).toEqual([]);
    const states = await partitionStates(t.db, tables);
    expect(states.interval).toBe('month');
    expect(states.tables.map((s) => s.default_rows)).toEqual(partitioned.map(() => 0));
  });
});
