/**
 * Every time budget in the tests comes from one factor, so that a slow or busy machine is
 * answered by raising one number instead of editing tests: `TEST_TIME_FACTOR`. Its default, 2,
 * gives every wait twice what an idle developer machine needs, so that `npm test` also passes
 * on a machine busy with another job of the same size.
 * Budgets bound how long a test may wait for something that must happen; no test asserts that
 * something happened quickly.
 */
export const timeFactor = readFactor(process.env.TEST_TIME_FACTOR);

function readFactor(raw: string | undefined): number {
  if (raw === undefined || raw === '') return 2;
  const factor = Number(raw);
  if (!Number.isFinite(factor) || factor <= 0) {
    throw new Error(`TEST_TIME_FACTOR must be a positive number, not ${JSON.stringify(raw)}`);
  }
  return factor;
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
