import {
  decodeBase64,
  type NoteVerifier,
  openCheckpoint,
  parseVerifierKey,
  verifyConsistency,
} from '../proof/index.js';
import { originHash } from '../witness/index.js';
import { keepEvidence, type MonitorState, readState, writeState } from './state.js';

/** Where a monitor reads a log: the service's API, with a key of the tenant whose log it is. */
export interface LogSource {
  readonly url: string;
  readonly apiKey: string;
}

export interface MonitorOptions {
  readonly source: LogSource;
  /** Where what was seen is kept between runs; evidence files are written beside it. */
  readonly stateFile: string;
  /** The log's verifier key, pinned; else the one the state holds, else the log's own answer. */
  readonly verifierKey?: string;
  /** Witnesses' monitoring prefixes (C2SP tlog-witness `GET <prefix>/<origin hash>/checkpoint`). */
  readonly witnessUrls: readonly string[];
  readonly timeoutMs: number;
}

/** One observation: what was checked, and what the log did wrong if anything. */
export interface MonitorReport {
  ok: boolean;
  origin?: string;
  size?: number;
  previous_size?: number;
  witnesses: { url: string; size?: number; consistent: boolean; reason?: string }[];
  /** Evidence of misbehaviour: a split view, a checkpoint that went back, another key. */
  problems: string[];
  /** Where the evidence of the problems was kept. */
  evidence?: string;
}

/** The log could not be read or checked at all (down, a bad key): nothing is concluded. */
export class MonitorError extends Error {}

/**
 * Follows a log from outside, as an auditor does: reads its newest signed checkpoint, checks it
 * with the log's key and against the last checkpoint this monitor saw (the same root at the same
 * size, a consistency proof to a larger one, never a smaller one), then against what each
 * witness has cosigned. On any contradiction the state is not moved, the two checkpoints are
 * kept as evidence, and the report says what went wrong.
 */
export async function monitorLog(options: MonitorOptions): Promise<MonitorReport> {
  const api = apiOf(options.source, options.timeoutMs);
  const previous = readState(options.stateFile);
  const keyText =
    options.verifierKey ??
    previous?.verifier_key ??
    (await api.get('/api/v1/log/key')).verifier_key;
  const key = parseVerifierKey(String(keyText));
  if (!key.ok) throw new MonitorError(`the log's verifier key does not read: ${key.reason}`);
  const served = (await api.get('/api/v1/log/checkpoint')) as { checkpoint: string };
  const opened = openCheckpoint(served.checkpoint, [key.value], {
    ...(previous ? { origin: previous.origin } : {}),
  });
  const report: MonitorReport = { ok: true, witnesses: [], problems: [] };
  if (!opened.ok) {
    report.problems.push(
      `the checkpoint served does not verify with the log's key: ${opened.reason}`,
    );
    return conclude(report, options, { served: served.checkpoint, previous });
  }
  const { origin, size, rootHash } = opened.value.checkpoint;
  Object.assign(report, { origin, size, previous_size: previous?.size });
  const root = Buffer.from(rootHash).toString('base64');
  if (previous) {
    const problem = await againstSeen(api, previous, size, root);
    if (problem) report.problems.push(problem);
  }
  for (const url of options.witnessUrls) {
    report.witnesses.push(
      await againstWitness(api, url, key.value, origin, size, rootHash, options),
    );
  }
  for (const w of report.witnesses) {
    if (!w.consistent && w.reason) report.problems.push(`witness ${w.url}: ${w.reason}`);
  }
  if (report.problems.length === 0) {
    writeState(options.stateFile, {
      origin,
      verifier_key: key.value.verifierKey,
      size,
      root,
      checkpoint: served.checkpoint,
      seen_at: new Date().toISOString(),
    });
  }
  return conclude(report, options, { served: served.checkpoint, previous });
}

function conclude(
  report: MonitorReport,
  options: MonitorOptions,
  seen: { served: string; previous: MonitorState | undefined },
): MonitorReport {
  if (report.problems.length === 0) return report;
  report.ok = false;
  report.evidence = keepEvidence(options.stateFile, {
    problems: report.problems,
    served: seen.served,
    previously_seen: seen.previous?.checkpoint ?? null,
    witnesses: report.witnesses,
  });
  return report;
}

type Api = ReturnType<typeof apiOf>;

/** The checkpoint served against the last one seen: same root at a size, a proof forward. */
async function againstSeen(
  api: Api,
  previous: MonitorState,
  size: number,
  root: string,
): Promise<string | undefined> {
  if (size < previous.size) {
    return `the log went back: ${size} leaves, after ${previous.size} were seen`;
  }
  if (size === previous.size) {
    return root === previous.root
      ? undefined
      : `split view: another root at size ${size} than the one seen before`;
  }
  if (previous.size === 0) return undefined;
  const proof = await consistencyProof(api, previous.size, size);
  const before = decodeBase64(previous.root);
  const after = decodeBase64(root);
  return proof && before && after && verifyConsistency(previous.size, size, proof, before, after)
    ? undefined
    : `split view: the checkpoint of size ${size} is not consistent with the one of size ${previous.size} seen before`;
}

/** What a witness cosigned of the log, against the checkpoint the log serves. */
async function againstWitness(
  api: Api,
  url: string,
  key: NoteVerifier,
  origin: string,
  size: number,
  rootHash: Uint8Array,
  options: MonitorOptions,
): Promise<MonitorReport['witnesses'][number]> {
  const hash = originHash(origin);
  let note: string;
  try {
    const response = await fetch(`${url.replace(/\/+$/, '')}/${hash}/checkpoint`, {
      signal: AbortSignal.timeout(options.timeoutMs),
    });
    if (response.status === 404)
      return { url, consistent: true, reason: 'has cosigned nothing of this log yet' };
    if (!response.ok) throw new Error(`answered ${response.status}`);
    note = await response.text();
  } catch (error) {
    // A witness that cannot be read proves nothing either way.
    return { url, consistent: true, reason: `could not be read: ${(error as Error).message}` };
  }
  const cosigned = openCheckpoint(note, [key], { origin });
  if (!cosigned.ok) {
    return { url, consistent: true, reason: `its checkpoint does not verify with the log's key` };
  }
  const seen = cosigned.value.checkpoint;
  const result = { url, size: seen.size };
  if (seen.size > size) {
    return {
      ...result,
      consistent: false,
      reason: `has cosigned ${seen.size} leaves; the log serves ${size}: the log went back`,
    };
  }
  if (seen.size === size) {
    return Buffer.from(seen.rootHash).equals(Buffer.from(rootHash))
      ? { ...result, consistent: true }
      : {
          ...result,
          consistent: false,
          reason: `split view: it cosigned another root at size ${size}`,
        };
  }
  if (seen.size === 0) return { ...result, consistent: true };
  const proof = await consistencyProof(api, seen.size, size);
  return proof && verifyConsistency(seen.size, size, proof, seen.rootHash, rootHash)
    ? { ...result, consistent: true }
    : {
        ...result,
        consistent: false,
        reason: `split view: the log's checkpoint is not consistent with the one it cosigned at size ${seen.size}`,
      };
}

async function consistencyProof(
  api: Api,
  from: number,
  to: number,
): Promise<Uint8Array[] | undefined> {
  const answer = (await api.get(`/api/v1/log/consistency?from=${from}&to=${to}`)) as {
    proof?: unknown;
  };
  if (!Array.isArray(answer.proof)) return undefined;
  const hashes = answer.proof.map((h) => (typeof h === 'string' ? decodeBase64(h) : undefined));
  return hashes.every((h) => h !== undefined) ? (hashes as Uint8Array[]) : undefined;
}

function apiOf(source: LogSource, timeoutMs: number) {
  return {
    async get(path: string): Promise<Record<string, unknown>> {
      let response: Response;
      try {
        response = await fetch(`${source.url.replace(/\/+$/, '')}${path}`, {
          headers: { 'x-system-api-key': source.apiKey },
          signal: AbortSignal.timeout(timeoutMs),
        });
      } catch (error) {
        throw new MonitorError(
          `the log at ${source.url} cannot be reached: ${(error as Error).message}`,
        );
      }
      const body = (await response.json().catch(() => undefined)) as
        | { data?: Record<string, unknown> }
        | undefined;
      if (!response.ok || !body?.data) {
        throw new MonitorError(`GET ${path} answered ${response.status}`);
      }
      return body.data;
    },
  };
}
