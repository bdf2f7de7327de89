import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../platform/db.js';
import { startPeriodic } from '../platform/periodic.js';
import { timeLimit } from '../platform/time-limit.js';
import { readTimestampResponse, timestampRequest, verifyTimestampToken } from '../proof/index.js';
import { lastTimestamps, saveTimestamp } from './timestamp-repository.js';
import type { TsaPolicy } from './tsa-list.js';
import { latestCheckpoints } from './witness-repository.js';

export interface Timestamping {
  stop(): Promise<void>;
}

export const idleTimestamping: Timestamping = { stop: async () => {} };

/** Why an authority's token was not kept: the `reason` label of the failures metric. */
export type TimestampFailure = 'unreachable' | 'refused' | 'invalid';

/** How often each authority's loop looks for checkpoints due a token. */
const lookEveryMs = 1_000;

/**
 * Has each log's newest checkpoint time-stamped (RFC 3161) by each authority, at most once per
 * `intervalMs` per log and authority, off the request path: the query is SHA-256 of the signed
 * checkpoint note, with a nonce. A token is kept only once it verifies (signature, chain to
 * `LOG_TSA_CA_FILE`'s roots, imprint, nonce); anything else is logged, counted and dropped, and
 * the authority is asked again at its next look. One loop per authority: one that hangs holds
 * only its own, for `timeoutMs` at most.
 */
export function startTimestamping(
  db: Db,
  policy: TsaPolicy,
  log: Pick<FastifyBaseLogger, 'warn' | 'error'>,
  failed: (tsa: string, reason: TimestampFailure) => void = () => {},
): Timestamping {
  if (policy.urls.length === 0) return idleTimestamping;
  const stopping = new AbortController();

  async function stamp(tsa: string, logId: string, size: number, note: string): Promise<boolean> {
    const message = Buffer.from(note, 'utf8');
    const { der, nonce } = timestampRequest(message);
    let body: Uint8Array;
    const limit = timeLimit(policy.timeoutMs, stopping.signal);
    try {
      const response = await fetch(tsa, {
        method: 'POST',
        body: der,
        headers: { 'content-type': 'application/timestamp-query' },
        signal: limit.signal,
      });
      body = new Uint8Array(await response.arrayBuffer());
      if (response.status !== 200) {
        return refuse(tsa, 'refused', `the authority answered ${response.status}`);
      }
    } catch (error) {
      if (stopping.signal.aborted) return false;
      return refuse(tsa, 'unreachable', (error as Error).message);
    } finally {
      limit.clear();
    }
    const token = readTimestampResponse(body);
    if (!token.ok) return refuse(tsa, 'invalid', token.reason);
    const verified = verifyTimestampToken(token.value, message, { roots: policy.roots, nonce });
    if (!verified.ok) return refuse(tsa, 'invalid', verified.reason);
    const now = new Date().toISOString();
    await saveTimestamp(db, {
      log_id: logId,
      size,
      tsa,
      token: Buffer.from(token.value).toString('base64'),
      gen_time: verified.value.genTime.toISOString(),
      created_at: now,
    });
    return true;
  }

  function refuse(tsa: string, reason: TimestampFailure, said: string): false {
    failed(tsa, reason);
    log.warn({ tsa, reason, error: said }, 'a time-stamp was not kept; asking again later');
    return false;
  }

  async function pass(tsa: string): Promise<void> {
    const [logs, last] = await Promise.all([latestCheckpoints(db), lastTimestamps(db, tsa)]);
    const now = Date.now();
    for (const latest of logs) {
      const previous = last.get(latest.log_id);
      const size = Number(latest.size);
      if (previous && previous.size >= size) continue;
      if (previous && now - Date.parse(previous.createdAt) < policy.intervalMs) continue;
      // A failing authority is asked again at its next look, not for every log in this one.
      if (!(await stamp(tsa, latest.log_id, size, latest.note))) return;
    }
  }

  const loops = policy.urls.map((tsa) =>
    startPeriodic(
      Math.min(lookEveryMs, policy.intervalMs),
      () => pass(tsa),
      (error) => log.error({ err: error, tsa }, 'time-stamping checkpoints failed; retrying'),
    ),
  );
  return {
    stop: async () => {
      stopping.abort();
      await Promise.all(loops.map((loop) => loop.stop()));
    },
  };
}
