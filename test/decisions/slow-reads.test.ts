import { CompiledQuery } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReaderThreads } from '../../src/platform/reader-threads.js';
import { apiOf } from '../helpers/api.js';
import { json, startTestApp, type TestApp } from '../helpers/app.js';
import { publish, type SeededTenant, seedTemplate, seedTenant, unique } from '../helpers/seed.js';
import { sqliteStore } from '../helpers/stores.js';

/** A read that takes as long as it is large: counting to `rows`, one row at a time. */
function scan(rows: number) {
  return CompiledQuery.raw(
    'with recursive n(i) as (select 1 union all select i + 1 from n where i < ?) ' +
      'select count(*) as counted from n',
    [rows],
  );
}

/** Requests answered while the scan was still running, checked as each came back. */
const enough = 20;

describe('reads on an SQLite file: off the event loop', () => {
  let t: TestApp;
  let a: SeededTenant;
  let api: ReturnType<typeof apiOf>;
  let readers: ReaderThreads;

  beforeAll(async () => {
    t = await startTestApp(sqliteStore);
    a = await seedTenant(t.db);
    api = apiOf(t.app, a.headers);
    if (!t.readers) throw new Error('an SQLite file has reader threads');
    readers = t.readers;
  });
  afterAll(async () => {
    await t.close();
  });

  it('a slow read on a reader thread delays neither latest nor the pending of another customer', async () => {
    const code = await seedTemplate(t.db, a.tenant.id);
    const v = await publish(t.db, a.tenant.id, code);
    const customer = unique('c');
    await api.decide(customer, v.consent_version_id, 'given');
    expect(json(await api.pending(customer, code)).data.accepted).toBe(true);

    // No wall clock: the scan grows until it outlasts `enough` answers. Were the reads on the
    // event loop, no answer could come back before the scan, whatever its size.
    for (let rows = 2_000_000; rows <= 128_000_000; rows *= 4) {
      let done = false;
      const running = readers.run<{ counted: number }>(scan(rows));
      running.then(
        () => {
          done = true;
        },
        () => {
          done = true;
        },
      );
      let answered = 0;
      while (!done && answered < enough) {
        const latest = await api.latest(code);
        expect(latest.statusCode).toBe(200);
        expect(json(latest).data).toEqual(v);
        const pending = await api.pending(customer, code);
        expect(pending.statusCode).toBe(200);
        expect(json(pending).data).toMatchObject({ accepted: true, decision: 'given' });
        if (!done) answered += 1;
      }
      expect((await running).rows).toEqual([{ counted: rows }]);
      if (answered === enough) return;
    }
    throw new Error(`no scan outlasted ${enough} answers of latest and pending`);
  });

  it("a customer's history and bulk status are read on the reader threads, not the event loop's connection", async () => {
    const code = await seedTemplate(t.db, a.tenant.id);
    const v = await publish(t.db, a.tenant.id, code);
    const customer = unique('c');
    await api.decide(customer, v.consent_version_id, 'given');
    const reads = [
      () => api.consents(customer),
      () =>
        t.app.inject({
          method: 'POST',
          url: '/api/v1/consents/status',
          headers: a.headers,
          payload: { template_code: code, customer_ids: [customer] },
        }),
    ];
    for (const read of reads) {
      // Each thread holds a scan: a read sent to them answers only after one of them ends. On
      // the event loop's own connection it would answer while both still run.
      const scans = readers.inFlight().map(() => readers.run(scan(4_000_000)));
      let scanned = false;
      void Promise.race(scans).then(() => {
        scanned = true;
      });
      const answer = await read();
      expect(answer.statusCode).toBe(200);
      expect(scanned, 'answered before a reader thread was free').toBe(true);
      await Promise.all(scans);
    }
    const history = json(await api.consents(customer)).data.history;
    expect(history.map((entry: { decision: string }) => entry.decision)).toEqual(['given']);
  });
});
