import { fail, type NoteVerifier, ok, parseVerifierKey, type Result } from '../proof/index.js';

/** A log the witness follows: the key its checkpoints are signed with, and the origins it owns. */
export interface KnownLog {
  readonly verifier: NoteVerifier;
  /**
   * The origins this key may sign. Empty: every origin `<key name>/…`, as a consent service
   * names its logs (one per tenant, `<key name>/<tenant id>`), and the key name itself.
   */
  readonly origins: readonly string[];
}

/**
 * Reads `WITNESS_LOGS_FILE`: one log a line, `<verifier key> [<origin> …]`; blank lines and
 * lines starting with `#` are skipped. A bad line fails naming its number.
 */
export function parseLogsFile(text: string): Result<KnownLog[]> {
  const logs: KnownLog[] = [];
  for (const [at, raw] of text.split('\n').entries()) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const [key, ...origins] = line.split(/\s+/);
    const verifier = parseVerifierKey(key as string);
    if (!verifier.ok) return fail(`line ${at + 1}: ${verifier.reason}`);
    logs.push({ verifier: verifier.value, origins });
  }
  return ok(logs);
}

/** The keys trusted for an origin (none: the witness does not know the log). */
export function verifiersFor(logs: readonly KnownLog[], origin: string): NoteVerifier[] {
  return logs
    .filter(({ verifier, origins }) =>
      origins.length > 0
        ? origins.includes(origin)
        : origin === verifier.name || origin.startsWith(`${verifier.name}/`),
    )
    .map(({ verifier }) => verifier);
}
