import { readFileSync } from 'node:fs';
import type { WitnessSettings } from '../platform/config.js';
import {
  type CosignerVerifier,
  fail,
  ok,
  parseCosignerVerifierKey,
  type Result,
} from '../proof/index.js';

/** A witness the log's checkpoints are sent to (`LOG_WITNESSES_FILE`). */
export interface LogWitness {
  /** The operator's name for it: the label of its metrics, its row in the store. */
  readonly name: string;
  readonly verifier: CosignerVerifier;
  /** Its submission prefix: `add-checkpoint` is posted to `<url>/add-checkpoint`. */
  readonly url: string;
}

/** The witnesses and how many of their cosignatures make a checkpoint witnessed. */
export interface WitnessPolicy {
  readonly witnesses: readonly LogWitness[];
  readonly quorum: number;
}

/** No witness: checkpoints are signed by the log alone, as before witnesses were configured. */
export const noWitnesses: WitnessPolicy = { witnesses: [], quorum: 0 };

export class WitnessListError extends Error {}

/**
 * Reads `LOG_WITNESSES_FILE`: one witness a line, `<name> <verifier key> <URL>`, blank lines and
 * `#` comments skipped. The quorum is `LOG_WITNESS_QUORUM`, or every witness listed; one above
 * the number listed could never be met, and is refused with the rest.
 */
export function loadWitnessPolicy(settings: WitnessSettings): WitnessPolicy {
  if (settings.file === undefined) return noWitnesses;
  let text: string;
  try {
    text = readFileSync(settings.file, 'utf8');
  } catch (error) {
    throw new WitnessListError(
      `LOG_WITNESSES_FILE ${settings.file} cannot be read: ${(error as Error).message}`,
    );
  }
  const witnesses = parseWitnessList(text);
  if (!witnesses.ok) {
    throw new WitnessListError(`LOG_WITNESSES_FILE ${settings.file}: ${witnesses.reason}`);
  }
  const quorum = settings.quorum ?? witnesses.value.length;
  if (quorum > witnesses.value.length) {
    throw new WitnessListError(
      `LOG_WITNESS_QUORUM is ${quorum}, but LOG_WITNESSES_FILE lists ${witnesses.value.length} witnesses`,
    );
  }
  return { witnesses: witnesses.value, quorum };
}

export function parseWitnessList(text: string): Result<LogWitness[]> {
  const witnesses: LogWitness[] = [];
  for (const [at, raw] of text.split('\n').entries()) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const [name, key, url, ...more] = line.split(/\s+/);
    if (name === undefined || key === undefined || url === undefined || more.length > 0) {
      return fail(`line ${at + 1}: "<name> <verifier key> <URL>" is expected`);
    }
    const verifier = parseCosignerVerifierKey(key);
    if (!verifier.ok) return fail(`line ${at + 1}: ${verifier.reason}`);
    if (!/^https?:\/\/\S+$/.test(url)) return fail(`line ${at + 1}: the URL is http(s)://…`);
    if (witnesses.some((w) => w.name === name)) return fail(`line ${at + 1}: ${name} twice`);
    witnesses.push({ name, verifier: verifier.value, url: url.replace(/\/+$/, '') });
  }
  return ok(witnesses);
}
