/**
 * A kind of record declared in a folder of its own and one line of a registry (`note-kind/`,
 * `registry.ts`), on both stores: with nothing else edited, its records get what every kind
 * gets from the generic pieces that loop over the registry: the write path (on an SQLite file,
 * in the writer thread, which loads the registry's module), a receipt served by the log's routes
 * that `verify-receipt` accepts offline, the log's audit, a section of the evidence pack that
 * verifies offline, a signed webhook event, and erasure.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { unzipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registry as serviceKinds } from '../../src/app/kinds.js';
import { verifyReceiptFile } from '../../src/cli/verify-receipt.js';
import { auditLog } from '../../src/decision-log/index.js';
import { eraseCustomer } from '../../src/erasure/index.js';
import { parseVerifierKey, verifyEvidencePack } from '../../src/proof/index.js';
import { createEndpoint } from '../../src/webhooks/index.js';
import { json, startTestApp, type TestApp, testLogKeys } from '../helpers/app.js';
import { type SeededTenant, seedTenant } from '../helpers/seed.js';
import { stores } from '../helpers/stores.js';
import {
  byCli,
  eventually,
  fastWebhooks,
  startReceiver,
  verified,
} from '../helpers/webhook-receiver.js';
import { type NoteJob, type NoteOutcome, notes } from './note-kind/kind.js';
import { registry } from './registry.js';

describe.each(stores)('a kind of record declared in its own folder, on $name', (store) => {
  let t: TestApp;
  let a: SeededTenant;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let secret: string;
  const dir = mkdtempSync(join(tmpdir(), 'note-kind-'));

  beforeAll(async () => {
    t = await startTestApp(store, fastWebhooks, { registry });
    a = await seedTenant(t.db);
    receiver = await startReceiver();
    ({ secret } = await createEndpoint(
      t.db,
      t.vault,
      t.config.webhooks,
      registry,
      byCli(a.tenant.id),
      { url: receiver.url, events: ['note.recorded'] },
    ));
  });
  afterAll(async () => {
    await receiver?.close();
    await t?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const note = (customerId: string, topic: string) =>
    t.writers.of<NoteJob, NoteOutcome>(notes).write({
      tenantId: a.tenant.id,
      apiKeyId: a.apiKey.id,
      ip: '192.0.2.7',
      userAgent: 'note-test/1',
      customerId,
      lookup: t.vault.lookup(a.tenant.id, customerId),
      topic,
    });
  const receipt = async (id: string) => {
    const response = await t.app.inject({
      method: 'GET',
      url: `/api/v1/notes/${id}/receipt?wait=true`,
      headers: a.headers,
    });
    expect(response.statusCode, response.body).toBe(200);
    return json(response);
  };
  const verifyFile = (body: unknown, formats = registry.formats) => {
    const file = join(dir, `receipt-${Math.random().toString(36).slice(2)}.json`);
    writeFileSync(file, JSON.stringify(body));
    return verifyReceiptFile(file, testLogKeys.verifierKey, formats);
  };
  const verifier = () => {
    const key = parseVerifierKey(testLogKeys.verifierKey);
    if (!key.ok) throw new Error(key.reason);
    return key.value;
  };

  it('is recorded once per customer and topic, through the write path every kind shares', async () => {
    const first = await note('nia', 'fee-schedule');
    expect(first).toMatchObject({ kind: 'recorded', note: { topic: 'fee-schedule' } });
    const again = await note('nia', 'fee-schedule');
    expect(again).toEqual({ kind: 'unchanged', note: first.note });
    const other = await note('nia', 'terms');
    expect(other.kind).toBe('recorded');
    expect(other.note.note_id).not.toBe(first.note.note_id);
  });

  it("has a receipt at the log's routes that verify-receipt accepts offline, opened to the customer", async () => {
    const { note: recorded } = await note('omar', 'fee-schedule');
    const { data } = await receipt(recorded.note_id);
    expect(data.note).toEqual({ ...recorded, customer_id: 'omar' });
    expect(data.leaf.startsWith('test-note/v1\n')).toBe(true);
    expect(verifyFile({ data })).toEqual({
      valid: true,
      kind: 'note',
      origin: expect.any(String),
      tree_size: expect.any(Number),
      leaf_index: data.leaf_index,
      opened: true,
      record: { note_id: recorded.note_id, noted_at: recorded.noted_at, topic: 'fee-schedule' },
    });
    // The format is the kind's own: without it, the same receipt is none the checker knows.
    const without = verifyFile({ data }, serviceKinds.formats);
    expect(without).toMatchObject({ valid: false, reason: /the logged leaf is none of/ });
    // And the record it states is checked against the leaf.
    const edited = { ...data, note: { ...data.note, topic: 'terms' } };
    expect(verifyFile({ data: edited })).toEqual({
      valid: false,
      reason: "the receipt's topic is not the one in the log",
    });
  });

  it("is in the log's audit: clean, then a changed note is found", async () => {
    const { note: recorded } = await note('pia', 'fee-schedule');
    await receipt(recorded.note_id);
    const clean = await auditLog(t.db, t.vault, registry, a.tenant.id);
    expect(clean.findings).toEqual([]);
    expect(clean.ok).toBe(true);
    await t.db
      .updateTable('notes')
      .set({ topic: 'terms' })
      .where('id', '=', recorded.note_id)
      .execute();
    try {
      const changed = await auditLog(t.db, t.vault, registry, a.tenant.id);
      expect(changed.findings.map((f) => [f.kind, f.record_id])).toEqual([
        ['record-differs-from-leaf', recorded.note_id],
      ]);
    } finally {
      await t.db
        .updateTable('notes')
        .set({ topic: 'fee-schedule' })
        .where('id', '=', recorded.note_id)
        .execute();
    }
  });

  it("has a section of the customer's evidence pack, which verifies offline", async () => {
    const { note: recorded } = await note('quinn', 'terms');
    const response = await t.app.inject({
      method: 'GET',
      url: '/api/v1/customers/quinn/evidence',
      headers: a.headers,
    });
    expect(response.statusCode, response.body).toBe(200);
    const files = new Map(Object.entries(unzipSync(response.rawPayload)));
    expect([...files.keys()].filter((path) => path.startsWith('records/'))).toEqual([
      `records/notes/${recorded.note_id}.json`,
    ]);
    const manifest = JSON.parse(Buffer.from(files.get('manifest.json') as Uint8Array).toString());
    expect(manifest.counts).toMatchObject({ notes: 1 });
    expect(verifyEvidencePack(files, [verifier()], registry.formats)).toMatchObject({
      valid: true,
      failures: [],
      verified: { notes: 1 },
    });
  });

  it('sends its webhook event, signed, with the note, its customer and its place in the log', async () => {
    const { note: recorded } = await note('rae', 'fee-schedule');
    const payloads = () =>
      receiver.received.map((got) => verified(secret, got) as { type: string; data: any });
    await eventually(() => payloads().some((p) => p.data.note_id === recorded.note_id));
    const event = payloads().find((p) => p.data.note_id === recorded.note_id);
    expect(event).toEqual({
      type: 'note.recorded',
      timestamp: recorded.noted_at,
      data: { ...recorded, customer_id: 'rae', log_index: expect.any(Number) },
    });
    expect(Object.keys(event?.data ?? {})[0]).toBe('note_id');
  });

  it('is erased with the customer: its state goes, its records stay provable, naming no one', async () => {
    const { note: recorded } = await note('sol', 'terms');
    await receipt(recorded.note_id);
    const erased = await eraseCustomer(
      t.db,
      t.vault,
      registry,
      a.tenant.id,
      'sol',
      byCli(a.tenant.id),
    );
    expect(erased).toMatchObject({ erased: true, notes: 1, decisions: 0, tombstones: 0 });
    const states = await t.db
      .selectFrom('note_states')
      .select('note_id')
      .where('note_id', '=', recorded.note_id)
      .execute();
    expect(states).toEqual([]);
    const { data } = await receipt(recorded.note_id);
    expect(data.opening).toBeNull();
    expect(data.note.customer_id).toBeNull();
    expect(verifyFile({ data })).toMatchObject({ valid: true, kind: 'note', opened: false });
    const audit = await auditLog(t.db, t.vault, registry, a.tenant.id);
    expect(audit.ok).toBe(true);
    expect(audit.erased_records).toBeGreaterThanOrEqual(1);
    // The customer's next note starts a new record: nothing of the old state is left.
    expect((await note('sol', 'terms')).kind).toBe('recorded');
  });
});
