/**
 * Outcome of parsing or verifying untrusted input. Verification never throws: a receipt checker
 * must be able to say "no, because ..." for any input, however broken.
 */
export type Result<T> = { readonly ok: true; readonly value: T } | Failure;

export interface Failure {
  readonly ok: false;
  readonly reason: string;
}

export function ok<T>(value: T): Result<T> {
  return { ok: true, value };
}

export function fail(reason: string): Failure {
  return { ok: false, reason };
}
