import { timeLimit } from '../platform/time-limit.js';
import {
  formatAddCheckpoint,
  type NoteVerifier,
  openWitnessedCheckpoint,
  parseKnownSize,
  parseNote,
  signatureLine,
} from '../proof/index.js';
import type { LogWitness } from './witness-list.js';

/** What a witness answered to one `add-checkpoint`. */
export type WitnessReply =
  /** Its cosignature lines on the checkpoint, each checked against its key. */
  | { readonly outcome: 'cosigned'; readonly lines: string[]; readonly times: number[] }
  /** `409`: it has cosigned another size of the log than the one sent as old. */
  | { readonly outcome: 'conflict'; readonly size: number }
  /** Anything else: down, slow, refused, or an answer that does not hold. */
  | { readonly outcome: 'failed'; readonly reason: string; readonly status?: number };

/**
 * Posts a checkpoint to a witness (C2SP tlog-witness `add-checkpoint`) and checks its answer:
 * a `200` counts only when its lines hold a cosignature by the witness's own key on exactly this
 * checkpoint; lines by other keys are dropped, as the spec asks of clients.
 */
export async function submitToWitness(
  witness: LogWitness,
  logVerifiers: readonly NoteVerifier[],
  request: { oldSize: number; proof: readonly Uint8Array[]; checkpoint: string },
  timeoutMs: number,
  /** Aborts the request at once (the service stopping). */
  stopping?: AbortSignal,
): Promise<WitnessReply> {
  let response: Response;
  let body: string;
  const limit = timeLimit(timeoutMs, stopping);
  try {
    response = await fetch(`${witness.url}/add-checkpoint`, {
      method: 'POST',
      body: formatAddCheckpoint(request),
      headers: { 'content-type': 'text/plain; charset=utf-8' },
      signal: limit.signal,
    });
    body = await response.text();
  } catch (error) {
    const name = (error as Error).name;
    return {
      outcome: 'failed',
      reason:
        name === 'TimeoutError' ? `no answer within ${timeoutMs} ms` : (error as Error).message,
    };
  } finally {
    limit.clear();
  }
  if (response.status === 409) {
    const size = parseKnownSize(body);
    return size.ok
      ? { outcome: 'conflict', size: size.value }
      : { outcome: 'failed', status: 409, reason: `a 409 without a size: ${size.reason}` };
  }
  if (response.status !== 200) {
    return { outcome: 'failed', status: response.status, reason: firstLine(body) };
  }
  return checkCosignature(witness, logVerifiers, request.checkpoint, body);
}

function checkCosignature(
  witness: LogWitness,
  logVerifiers: readonly NoteVerifier[],
  checkpoint: string,
  body: string,
): WitnessReply {
  if (!body.startsWith('\u2014 ') || !body.endsWith('\n')) {
    return { outcome: 'failed', status: 200, reason: 'the answer is not note signature lines' };
  }
  const opened = openWitnessedCheckpoint(checkpoint + body, logVerifiers, [witness.verifier], 1);
  if (!opened.ok) {
    return { outcome: 'failed', status: 200, reason: `no valid cosignature: ${opened.reason}` };
  }
  const parsed = parseNote(checkpoint + body);
  const mine = parsed.ok
    ? parsed.value.signatures.filter(
        (s) => s.name === witness.verifier.name && s.keyId === witness.verifier.keyId,
      )
    : [];
  return {
    outcome: 'cosigned',
    lines: mine.map(signatureLine),
    times: opened.value.witnesses.map((w) => w.time),
  };
}

function firstLine(body: string): string {
  return body.split('\n')[0]?.slice(0, 200) || '(no body)';
}
