import { Migrator } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appendBatch } from '../../src/log/append.js';
import { auditLog } from '../../src/log/audit.js';
import { leafOfDecision } from '../../src/log/queue.js';
import { loadConfig } from '../../src/platform/config.js';
import { createDb, type Db } from '../../src/platform/db.js';
import { migrateToLatest } from '../../src/platform/migrate.js';
import * as initial from '../../src/platform/migrations/0001-initial.js';
import * as backoffice from '../../src/platform/migrations/0002-backoffice.js';
import { parseSignerKey } from '../../src/proof/index.js';
import { testLogKeys } from '../helpers/app.js';
import { publish, seedTemplate, seedTenant } from '../helpers/seed.js';
import { stores } from '../helpers/stores.js';

describe.each(stores)('upgrading a store with decisions to the decision log on $name', (store) => {
  let db: Db;
  let drop: () => Promise<void>;

  beforeAll(async () => {
    const created = await store.create();
    drop = created.drop;
    db = createDb(loadConfig({ DATABASE_URL: created.databaseUrl }));
  });
  afterAll(async () => {
    await db.destroy();
    await drop();
  });

  it('queues every earlier decision, oldest first, with the leaf a new decision would get, and the log it makes audits clean', async () => {
    // The store as it was before the log: the first two migrations only.
    const before = new Migrator({
      db,
      provider: {
        getMigrations: async () => ({ '0001-initial': initial, '0002-backoffice': backoffice }),
      },
    });
    expect((await before.migrateToLatest()).error).toBeUndefined();
    const a = await seedTenant(db);
    const code = await seedTemplate(db, a.tenant.id);
    const version = await publish(db, a.tenant.id, code);
    const { template_id, content_sha256 } = await db
      .selectFrom('template_versions')
      .select(['template_id', 'content_sha256'])
      .where('id', '=', version.consent_version_id)
      .executeTakeFirstOrThrow();
    const earlier = [
      ['0190e8a0-0000-7000-8000-000000000003', 'carol', 1, '2026-01-03T00:00:00.000Z'],
      ['0190e8a0-0000-7000-8000-000000000001', 'alice', 1, '2026-01-01T00:00:00.000Z'],
      ['0190e8a0-0000-7000-8000-000000000002', 'alice', 2, '2026-01-02T00:00:00.000Z'],
    ] as const;
    for (const [id, customer, seq, at] of earlier) {
      // The columns decisions had then (no evidence salt yet).
      await db
        .insertInto('decisions')
        .values({
          tenant_id: a.tenant.id,
          id,
          customer_id: customer,
          template_id,
          consent_version_id: version.consent_version_id,
          version: 1,
          decision: seq === 1 ? 'given' : 'withdraw',
          seq,
          decided_at: at,
          api_key_id: a.apiKey.id,
          ip: '198.51.100.9',
          user_agent: 'Older/1.0',
          content_sha256,
          idempotency_key: null,
        } as never)
        .execute();
    }

    expect(await migrateToLatest(db)).toContain('0003-decision-log');

    const queued = await db
      .selectFrom('tlog_pending')
      .selectAll()
      .where('log_id', '=', a.tenant.id)
      .orderBy('queued_at')
      .execute();
    expect(queued.map((row) => row.record_id)).toEqual([
      '0190e8a0-0000-7000-8000-000000000001',
      '0190e8a0-0000-7000-8000-000000000002',
      '0190e8a0-0000-7000-8000-000000000003',
    ]);
    const salts = await db
      .selectFrom('log_subjects')
      .selectAll()
      .where('tenant_id', '=', a.tenant.id)
      .execute();
    expect(salts.map((row) => row.customer_id).sort()).toEqual(['alice', 'carol']);
    for (const row of queued) {
      const decision = await db
        .selectFrom('decisions')
        .selectAll()
        .where('id', '=', row.record_id)
        .executeTakeFirstOrThrow();
      expect(decision.evidence_salt).toEqual(expect.any(String));
      const salt = salts.find((s) => s.customer_id === decision.customer_id)?.salt ?? '';
      expect(row.leaf).toBe(
        leafOfDecision({ ...decision, evidence_salt: decision.evidence_salt ?? '' }, salt),
      );
    }

    const signer = parseSignerKey(testLogKeys.signerKey);
    if (!signer.ok) throw new Error(signer.reason);
    expect(await appendBatch(db, a.tenant.id, signer.value)).toEqual({ appended: 3, size: 3 });
    expect(await auditLog(db, a.tenant.id)).toMatchObject({ entries: 3, ok: true });
  });
});
