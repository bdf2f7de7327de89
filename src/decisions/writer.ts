import type { DecisionWriter } from './service.js';

/**
 * The writer of decisions as the service holds it: the hot path's writer (src/write-path/writers.ts), which
 * writes decisions and visitors' cookie choices in the same batches.
 */
export interface DecisionWriterHandle extends DecisionWriter {
  /** True while the store refuses writes (the health check). */
  failing(): boolean;
  /** Decisions committed, in how many commits. */
  stats(): { units: number; commits: number };
  /** Runs one statement on the connection that writes decisions (maintenance, fault drills). */
  execute(statement: string): Promise<void>;
}
