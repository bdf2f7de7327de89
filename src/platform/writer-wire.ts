import { AppError, type ErrorName } from './errors.js';

/**
 * The messages between the main thread and the SQLite writer thread (`writer-thread.ts`, the main
 * side; `writer-loop.ts`, the thread's side). Every value crosses by structured clone.
 */
export type ToWriter<Job> =
  | { type: 'jobs'; jobs: Array<{ id: number; job: Job }> }
  /** One statement on the writer's connection, between batches (maintenance, fault drills). */
  | { type: 'execute'; id: number; sql: string }
  /** One of the thread's named tasks (see `serveWrites`), between batches. */
  | { type: 'task'; id: number; name: string }
  | { type: 'close' };

export type FromWriter =
  | { type: 'results'; results: WireResult[]; committed: boolean }
  /** The answer to an `execute` or a task: not a decision, so not counted as one. */
  | { type: 'executed'; result: WireResult }
  | { type: 'ready' };

export type WireResult =
  | { id: number; ok: true; value: unknown }
  | { id: number; ok: false; error: WireError };

/** An error as it crosses: a catalogue error keeps its entry, a store error its engine code. */
export interface WireError {
  message: string;
  code?: string;
  appError?: ErrorName;
  details?: AppError['details'];
  headers?: AppError['headers'];
}

export function toWire(error: unknown): WireError {
  if (error instanceof AppError) {
    return {
      message: error.message,
      appError: error.kind,
      ...(error.details ? { details: error.details } : {}),
      ...(error.headers ? { headers: error.headers } : {}),
    };
  }
  if (!(error instanceof Error)) return { message: String(error) };
  const code = (error as { code?: unknown }).code;
  return { message: error.message, ...(typeof code === 'string' ? { code } : {}) };
}

export function fromWire(wire: WireError): Error {
  if (wire.appError) {
    return new AppError(wire.appError, {
      message: wire.message,
      ...(wire.details ? { details: wire.details } : {}),
      ...(wire.headers ? { headers: wire.headers } : {}),
    });
  }
  return Object.assign(new Error(wire.message), wire.code ? { code: wire.code } : {});
}
