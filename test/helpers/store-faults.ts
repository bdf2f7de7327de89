/**
 * Real store faults for the component tests, provoked in the real engines without root: each
 * makes the store of a test app refuse, and then accept again, what it refuses in production
 * when a disk fills, a file or a database turns read-only, or a database stops taking
 * connections. And one fault no disk makes: an audit log that refuses new entries, to show that
 * an act and its entry are written together or not at all.
 */
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { sql } from 'kysely';
import pg from 'pg';
import { expect, inject } from 'vitest';
import { type Db, isPostgres } from '../../src/platform/db.js';
import { apiOf } from './api.js';
import { json, type TestApp } from './app.js';
import { unique } from './seed.js';
import type { TestStore } from './stores.js';

export interface StoreFault {
  /** What the store does, as test names say it. */
  name: string;
  /** True when reads still work and only writes are refused. */
  writesOnly: boolean;
  /** The code of the engine's own error for a refused write. */
  code: string;
  refuse(t: TestApp): Promise<void>;
  restore(t: TestApp): Promise<void>;
}

/** SQLite's own default ceiling, restored after the fault. */
const sqliteDefaultMaxPageCount = 4_294_967_294;

/**
 * SQLite: the store is full (`max_page_count` set to its current size: the engine answers
 * SQLITE_FULL to any write that needs a new page) and read-only (`query_only`: SQLITE_READONLY
 * to any write). Both settings belong to a connection: they are set on the service's two, the
 * one the test app shares with it and the one its writer thread writes decisions with.
 */
const sqliteFaults: StoreFault[] = [
  {
    name: 'is full (SQLITE_FULL)',
    code: 'SQLITE_FULL',
    writesOnly: true,
    async refuse(t) {
      const { rows } = await sql<{ page_count: number }>`pragma page_count`.execute(t.db);
      const pages = rows[0]?.page_count ?? 0;
      await onBothConnections(t, `pragma max_page_count = ${pages}`);
    },
    async restore(t) {
      await onBothConnections(t, `pragma max_page_count = ${sqliteDefaultMaxPageCount}`);
    },
  },
  {
    name: 'is read-only (SQLITE_READONLY)',
    code: 'SQLITE_READONLY',
    writesOnly: true,
    async refuse(t) {
      await onBothConnections(t, 'pragma query_only = 1');
    },
    async restore(t) {
      await onBothConnections(t, 'pragma query_only = 0');
    },
  },
];

/**
 * PostgreSQL: the database turns read-only for new sessions (25006 on every write, as a standby
 * or `default_transaction_read_only` answers) and stops accepting connections (55000). The
 * service's sessions are ended to make the change reach it, as a failover would. Restoring does
 * not end them again: the service has to get over the fault by itself.
 */
const postgresFaults: StoreFault[] = [
  {
    name: 'is read-only (25006)',
    code: '25006',
    writesOnly: true,
    async refuse(t) {
      const name = databaseName(t);
      await asAdmin(`alter database ${name} set default_transaction_read_only = on`);
      await endSessions(name);
    },
    async restore(t) {
      await asAdmin(`alter database ${databaseName(t)} reset default_transaction_read_only`);
    },
  },
  {
    name: 'is not accepting connections (55000)',
    code: '55000',
    writesOnly: false,
    async refuse(t) {
      const name = databaseName(t);
      await asAdmin(`alter database ${name} allow_connections false`);
      await endSessions(name);
    },
    async restore(t) {
      await asAdmin(`alter database ${databaseName(t)} allow_connections true`);
    },
  },
];

async function onBothConnections(t: TestApp, statement: string): Promise<void> {
  await sql.raw(statement).execute(t.db);
  await t.writer.execute(statement);
}

export function storeFaults(store: TestStore): StoreFault[] {
  return store.name === 'sqlite' ? sqliteFaults : postgresFaults;
}

function databaseName(t: TestApp): string {
  const name = new URL(t.config.databaseUrl).pathname.slice(1);
  if (!/^[a-z0-9_]+$/.test(name)) throw new Error(`unexpected database name ${name}`);
  return name;
}

/**
 * Ends the database's sessions and waits (up to 5 s each) until their backends are gone, so
 * their connections have been told (57P01) before the fault counts as in place: a write sent
 * through one still closing would fail with that instead of the fault's own error.
 */
async function endSessions(name: string): Promise<void> {
  await asAdmin(
    `select pg_terminate_backend(pid, 5000) from pg_stat_activity where datname = '${name}' and pid <> pg_backend_pid()`,
  );
}

async function asAdmin(statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: inject('postgresAdminUrl') });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

const unavailable = { code: '1009', message: 'Service unavailable.' };

/** The contract's `503 1009`, in the error shape, with a `Retry-After` in seconds. */
export function expectUnavailable(response: LightMyRequestResponse, what: string): void {
  expect({ what, status: response.statusCode, body: response.body }).toEqual({
    what,
    status: 503,
    body: JSON.stringify(unavailable),
  });
  expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
  expect(String(response.headers['retry-after']), `${what}: Retry-After`).toMatch(/^[1-9]\d*$/);
}

/** Most decisions sent while waiting for the fault to show (a full store takes some filling). */
const maxDecisionsUntilRefused = 200;

/**
 * Decisions for new customers until one is refused, then three more: the answers until the
 * first refusal are 201 (a write that still fit), every later one 503 1009. The decisions
 * answered 201 are added to `acknowledged` (customer to decision id).
 */
export async function decideUntilRefused(
  app: FastifyInstance,
  headers: Record<string, string>,
  versionId: string,
  acknowledged = new Map<string, string>(),
): Promise<void> {
  const api = apiOf(app, headers);
  let refusedAt: number | undefined;
  for (let i = 0; i < maxDecisionsUntilRefused && refusedAt === undefined; i += 1) {
    const customer = unique('during');
    const response = await api.decide(customer, versionId, 'given');
    if (response.statusCode === 201) acknowledged.set(customer, json(response).data.decision_id);
    else {
      expectUnavailable(response, `decision ${i}`);
      refusedAt = i;
    }
  }
  expect(refusedAt, 'no decision was refused').toBeDefined();
  for (let i = 0; i < 3; i += 1) {
    expectUnavailable(await api.decide(unique('during'), versionId, 'given'), `decision +${i}`);
  }
}

/** The message the audit log's refusal raises (see `refuseAuditEntries`). */
export const auditRefusal = 'the audit log refuses new entries';

/**
 * Makes the store refuse every new audit entry, with a trigger that raises on insert into
 * `audit_log`: an act and its entry are one transaction, so the act must leave nothing behind.
 * `acceptAuditEntries` drops the trigger again.
 */
export async function refuseAuditEntries(db: Db): Promise<void> {
  if (isPostgres(db)) {
    await sql
      .raw(
        `create function refuse_audit_entry() returns trigger language plpgsql as $$
         begin raise exception '${auditRefusal}'; end $$`,
      )
      .execute(db);
    await sql
      .raw(
        `create trigger refuse_audit_entry before insert on audit_log
         for each row execute function refuse_audit_entry()`,
      )
      .execute(db);
    return;
  }
  await sql
    .raw(
      `create trigger refuse_audit_entry before insert on audit_log
       begin select raise(abort, '${auditRefusal}'); end`,
    )
    .execute(db);
}

export async function acceptAuditEntries(db: Db): Promise<void> {
  if (isPostgres(db)) {
    await sql.raw('drop trigger refuse_audit_entry on audit_log').execute(db);
    await sql.raw('drop function refuse_audit_entry()').execute(db);
    return;
  }
  await sql.raw('drop trigger refuse_audit_entry').execute(db);
}
