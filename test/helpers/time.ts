import { availableParallelism, loadavg } from 'node:os';

/**
 * Every time budget in the tests comes from one factor, so that a slow or busy machine is
 * answered by raising one number instead of editing tests: `TEST_TIME_FACTOR`. When it is not
 * set, the run sets it from the machine's load as the run starts (`automaticFactor`): twice what
 * an idle developer machine needs, and more in proportion as other work already keeps the cores
 * busy, since this run will then get only its share of them. It is set once, in the process
 * that starts the run (Vitest reads `vitest.config.ts`, which imports this module, before it
 * starts any worker), and the workers inherit it, so that every file of a run has one factor.
 * Budgets bound how long a test may wait for something that must happen; no test asserts that
 * something happened quickly.
 */
export const timeFactor = readFactor(process.env.TEST_TIME_FACTOR);

function readFactor(raw: string | undefined): number {
  if (raw === undefined || raw === '') {
    const factor = automaticFactor(loadavg()[0] ?? 0, availableParallelism());
    process.env.TEST_TIME_FACTOR = String(factor);
    return factor;
  }
  const factor = Number(raw);
  if (!Number.isFinite(factor) || factor <= 0) {
    throw new Error(`TEST_TIME_FACTOR must be a positive number, not ${JSON.stringify(raw)}`);
  }
  return factor;
}

/**
 * The factor for a machine whose load average over the last minute is `load` on `cores`: 2 on
 * an idle machine, plus 2 for each core's worth of work already running (two other jobs keeping
 * two cores busy: 4), rounded up to a tenth.
 */
export function automaticFactor(load: number, cores: number): number {
  return Math.ceil(20 * (1 + Math.max(0, load) / Math.max(1, cores))) / 10;
}

/** `ms`, what an idle developer machine needs, scaled by the run's factor. */
export function budget(ms: number): number {
  return Math.ceil(ms * timeFactor);
}

/**
 * The scrypt cost (log2 of N, `PASSWORD_HASH_COST`) the tests hash passwords at: the cheapest the
 * service accepts, since the production cost (17, 128 MiB a hash) would make each sign-in the
 * slowest part of a test. One test (`config.test.ts`) keeps the production cost.
 */
export const testPasswordHashCost = 10;

/**
 * The store's statement timeout in tests (`DATABASE_STATEMENT_TIMEOUT_MS`) where the timeout is
 * not what is tested. With the production default, 5 s, a busy run failed a seed's ROLLBACK with
 * "Connection terminated unexpectedly": the sign of the client's read timeout (a second after the
 * statement timeout), which closes the connection under the transaction.
 */
export const testStatementTimeoutMs = budget(30_000);

/**
 * How long a test's process waits for a connection to the store (`DATABASE_CONNECT_TIMEOUT_MS`)
 * where that wait is not what is tested. The production default, 2 s, is an answer to a store in
 * trouble; on a busy run the PostgreSQL the tests start can take longer than that to accept one,
 * and a command then failed with 1009 before doing anything.
 */
export const testConnectTimeoutMs = budget(10_000);

/** The store's timeouts a test's process runs with, unless the test names its own. */
export const testStoreTimeouts: Readonly<Record<string, string>> = {
  DATABASE_STATEMENT_TIMEOUT_MS: String(testStatementTimeoutMs),
  DATABASE_CONNECT_TIMEOUT_MS: String(testConnectTimeoutMs),
};
