/**
 * The integrator's cadence (src/decision-log/integrator.ts): passes start an interval apart, start to
 * start, so a receipt waits at most one interval and one pass. Driven on the real store with the
 * clock faked: a pass is made to take 600 ms of a 1,000 ms interval by its signer.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { type Integrator, startIntegrator } from '../../src/decision-log/integrator.js';
import { type NoteSigner, parseSignerKey } from '../../src/proof/index.js';
import { startTestApp, type TestApp, testLogKeys } from '../helpers/app.js';
import { sqliteStore } from '../helpers/stores.js';

const key = (() => {
  const parsed = parseSignerKey(testLogKeys.signerKey);
  if (!parsed.ok) throw new Error(parsed.reason);
  return parsed.value;
})();

describe('the integrator', () => {
  let t: TestApp;
  let integrator: Integrator | undefined;

  beforeAll(async () => {
    t = await startTestApp(sqliteStore, { LOG_INTEGRATE_INTERVAL_MS: '60000' });
  });
  afterEach(async () => {
    vi.useRealTimers();
    await integrator?.stop();
  });
  afterAll(async () => {
    await t.close();
  });

  const logId = randomUUID();
  let queued = 0;
  const queueLeaf = () => {
    queued += 1;
    return t.db
      .insertInto('tlog_pending')
      .values({
        log_id: logId,
        record_id: `r${String(queued).padStart(6, '0')}`,
        leaf: `leaf ${queued}\n`,
        queued_at: '2026-01-01T00:00:00.000Z',
      })
      .execute();
  };
  /** Lets the store's promises settle without moving the faked clock. */
  const settle = async () => {
    for (let i = 0; i < 50; i += 1) await new Promise((resolve) => setImmediate(resolve));
  };

  it('starts a pass one interval after the previous one started, not after it ended', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    const signedAt: number[] = [];
    const slowSigner: NoteSigner = {
      ...key,
      sign: (message) => {
        signedAt.push(performance.now());
        // The first pass takes 600 ms of the interval.
        if (signedAt.length === 1) vi.advanceTimersByTime(600);
        return key.sign(message);
      },
    };
    await queueLeaf();
    const started = performance.now();
    integrator = startIntegrator(t.db, slowSigner, console, 1_000);
    vi.advanceTimersByTime(1_000);
    await settle();
    expect(signedAt.map((at) => at - started)).toEqual([1_000]);

    // The pass ended at 1,600 ms: the next one is due at 2,000, not at 2,600.
    await queueLeaf();
    vi.advanceTimersByTime(399);
    await settle();
    expect(signedAt).toHaveLength(1);
    vi.advanceTimersByTime(1);
    await settle();
    expect(signedAt.map((at) => at - started)).toEqual([1_000, 2_000]);
  });
});
