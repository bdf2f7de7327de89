import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../platform/db.js';
import { startPeriodic } from '../platform/periodic.js';
import { consistencyPlan, type NoteVerifier, parseVerifierKey } from '../proof/index.js';
import { proofFrom } from './service.js';
import { submitToWitness } from './witness-client.js';
import { type LogWitness, noWitnesses, type WitnessPolicy } from './witness-list.js';
import {
  latestCheckpoints,
  moveWitnessSize,
  oldestUncosigned,
  saveCosignature,
  witnessSizes,
} from './witness-repository.js';

/** How one witness keeps up with the logs, as this instance last saw it. */
export interface WitnessStatus {
  readonly name: string;
  /** The most leaves of any log it has not cosigned yet. */
  readonly lagLeaves: number;
  /** How long the oldest checkpoint it has not cosigned has waited, in seconds. */
  readonly lagSeconds: number;
  /** Its last request failed; it is retried after a backoff. */
  readonly failing: boolean;
}

export interface Witnessing {
  /** Runs a pass now (or joins the one running) and resolves when it is over. */
  kick(): Promise<void>;
  stop(): Promise<void>;
  /** Each witness's lag, as of the last pass: for `/api/health` and the metrics. */
  status(): readonly WitnessStatus[];
}

export const idleWitnessing: Witnessing = {
  kick: async () => {},
  stop: async () => {},
  status: () => [],
};

/** Why a witness was not asked, or did not cosign: the `reason` label of the failures metric. */
export type WitnessFailure = 'unreachable' | 'refused' | 'invalid' | 'log-behind';

/** The logs behind a witness whose oldest uncosigned checkpoint a pass looks up, at most. */
const lagLookups = 100;

/** The longest wait before a failing witness is tried again. */
const maxBackoffMs = 5 * 60 * 1000;

/**
 * The background loop that has each new checkpoint cosigned (C2SP tlog-witness), off the request
 * path: every `intervalMs`, each witness is sent the latest checkpoint of every log it has not
 * cosigned yet, with the consistency proof from the size it cosigned last. A `409` names the size
 * it knows, and the request is made again from there; a witness that fails is left alone for a
 * backoff that doubles up to five minutes. Nothing here is on a decision's way: a witness that
 * hangs holds only this loop, for `timeoutMs` at most.
 */
export function startWitnessing(
  db: Db,
  policy: WitnessPolicy,
  settings: { readonly intervalMs: number; readonly timeoutMs: number },
  log: Pick<FastifyBaseLogger, 'info' | 'warn' | 'error'>,
  failed: (witness: string, reason: WitnessFailure) => void = () => {},
): Witnessing {
  if (policy === noWitnesses || policy.witnesses.length === 0) return idleWitnessing;
  const backoff = new Map<string, { failures: number; until: number }>();
  // Closing the service cuts the requests in flight, rather than wait out a witness that hangs.
  const stopping = new AbortController();
  const status = new Map<string, WitnessStatus>(
    policy.witnesses.map((w) => [
      w.name,
      { name: w.name, lagLeaves: 0, lagSeconds: 0, failing: false },
    ]),
  );

  function failure(witness: LogWitness, reason: WitnessFailure, details: object, said: string) {
    const was = backoff.get(witness.name);
    const failures = (was?.failures ?? 0) + 1;
    const wait = Math.min(maxBackoffMs, settings.intervalMs * 2 ** failures);
    backoff.set(witness.name, { failures, until: Date.now() + wait });
    failed(witness.name, reason);
    log.warn({ witness: witness.name, reason, retryInMs: wait, ...details }, said);
  }

  async function submitTo(
    witness: LogWitness,
    logs: Awaited<ReturnType<typeof latestCheckpoints>>,
  ) {
    const sizes = await witnessSizes(db, witness.name);
    for (const latest of logs) {
      const logSize = Number(latest.size);
      let oldSize = sizes.get(`${latest.log_id} ${witness.name}`) ?? 0;
      if (oldSize >= logSize) continue;
      const verifier = parseVerifierKey(latest.verifier_key);
      if (!verifier.ok) continue;
      // Once from the size on record, once more from the size a 409 names.
      for (let attempt = 0; attempt < 2; attempt++) {
        const reply = await submitToWitness(
          witness,
          [verifier.value as NoteVerifier],
          {
            oldSize,
            proof:
              oldSize === 0
                ? []
                : await proofFrom(db, latest.log_id, consistencyPlan(oldSize, logSize)),
            checkpoint: latest.note,
          },
          settings.timeoutMs,
          stopping.signal,
        );
        if (reply.outcome === 'cosigned') {
          await db.transaction().execute(async (trx) => {
            for (const [at, line] of reply.lines.entries()) {
              const time = reply.times[Math.min(at, reply.times.length - 1)] ?? 0;
              await saveCosignature(trx, {
                log_id: latest.log_id,
                size: logSize,
                witness: witness.name,
                line,
                cosigned_at: new Date(time * 1000).toISOString(),
              });
            }
          });
          backoff.delete(witness.name);
          break;
        }
        if (reply.outcome === 'conflict') {
          if (reply.size > logSize) {
            failure(
              witness,
              'log-behind',
              { logId: latest.log_id, witnessSize: reply.size, logSize },
              'the witness has cosigned a larger size of this log than the log has: the log is behind what was witnessed (a restore?); it will not be cosigned (docs/proof.md, "Restores and log epochs")',
            );
            break;
          }
          oldSize = reply.size;
          await moveWitnessSize(
            db,
            latest.log_id,
            witness.name,
            reply.size,
            new Date().toISOString(),
          );
          if (oldSize === logSize) break;
          continue;
        }
        if (stopping.signal.aborted) return;
        failure(
          witness,
          reply.status === undefined ? 'unreachable' : reply.status === 200 ? 'invalid' : 'refused',
          { logId: latest.log_id, status: reply.status, error: reply.reason },
          'the witness did not cosign the checkpoint; retrying after a backoff',
        );
        return;
      }
    }
  }

  async function measure(witness: LogWitness, logs: Awaited<ReturnType<typeof latestCheckpoints>>) {
    const sizes = await witnessSizes(db, witness.name);
    const now = Date.now();
    const behind = logs
      .map((l) => ({
        log_id: l.log_id,
        size: Number(l.size),
        from: sizes.get(`${l.log_id} ${witness.name}`) ?? 0,
      }))
      .filter((l) => l.from < l.size);
    // One look-up per log behind: the furthest behind only, so that a witness down for long,
    // with thousands of logs waiting, costs a pass a bounded number of reads.
    const furthest = [...behind].sort((x, y) => y.size - y.from - (x.size - x.from));
    const oldest = await oldestUncosigned(db, witness.name, furthest.slice(0, lagLookups));
    const ages = [...oldest.values()].map((at) => Math.max(0, (now - Date.parse(at)) / 1000));
    status.set(witness.name, {
      name: witness.name,
      lagLeaves: Math.max(0, ...behind.map((l) => l.size - l.from)),
      lagSeconds: Math.max(0, ...ages),
      failing: (backoff.get(witness.name)?.failures ?? 0) > 0,
    });
  }

  /** One witness's pass: a witness that hangs or fails holds its own loop only. */
  async function pass(witness: LogWitness): Promise<void> {
    const logs = await latestCheckpoints(db);
    if ((backoff.get(witness.name)?.until ?? 0) <= Date.now()) await submitTo(witness, logs);
    await measure(witness, logs);
  }

  const loops = policy.witnesses.map((witness) =>
    startPeriodic(
      settings.intervalMs,
      () => pass(witness),
      (error) => {
        log.error(
          { err: error, witness: witness.name },
          'submitting checkpoints to a witness failed; retrying',
        );
      },
    ),
  );
  return {
    kick: async () => void (await Promise.all(loops.map((loop) => loop.run()))),
    stop: async () => {
      stopping.abort();
      await Promise.all(loops.map((loop) => loop.stop()));
    },
    status: () => [...status.values()],
  };
}
