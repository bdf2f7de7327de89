import type { WireResult } from './writer-wire.js';

/**
 * The messages between the main thread and an SQLite reader thread (`reader-threads.ts`, the
 * main side; `reader-loop.ts`, the thread's side). Every value crosses by structured clone.
 */
export type ToReader = { type: 'reads'; reads: ReadRequest[] } | { type: 'close' };

export interface ReadRequest {
  id: number;
  sql: string;
  parameters: readonly unknown[];
}

/** A read's rows (`value`) or its error, and how long its statement ran on the thread. */
export type ReadResult = WireResult & { durationMs: number };

/** Each read's result, in the order sent. */
export type FromReader = { type: 'rows'; results: ReadResult[] };

/** What a reader thread is started with. */
export interface ReaderData {
  path: string;
  busyTimeoutMs: number;
}
