/** Answers a batch of look-ups in one statement, each answer at its look-up's position. */
export type BatchReader<Q, R> = (queries: readonly Q[]) => Promise<readonly R[]>;

/** Most look-ups in one statement. */
const maxBatch = 512;

/**
 * Batch statements of look-ups running at once on a pool: half of it, so that writes and other
 * reads always find a connection, and at most 4, so that under load statements grow rather than
 * multiply.
 */
export function readBatchesInFlight(poolSize: number): number {
  return Math.max(1, Math.min(4, Math.floor(poolSize / 2)));
}

/**
 * Batched reads on PostgreSQL, as group commit batches writes (`group-commit.ts`): the look-ups
 * asked in the same turn of the event loop go to the store as one statement, and each caller gets
 * its own row back. At most `inFlight` statements run at once (each on a pool connection of its
 * own); the look-ups that arrive meanwhile wait and go together as the next one, so under load
 * the statements grow instead of multiplying, and a request pays a share of one round trip.
 * A statement that fails fails each of its look-ups with its error.
 */
export function batchedReads<Q, R>(
  read: BatchReader<Q, R>,
  inFlight: number,
): (query: Q) => Promise<R> {
  type Waiting = { query: Q; resolve: (value: R) => void; reject: (error: unknown) => void };
  let queue: Waiting[] = [];
  let running = 0;
  let scheduled = false;

  async function answer(batch: readonly Waiting[]): Promise<void> {
    try {
      const rows = await read(batch.map((w) => w.query));
      batch.forEach((w, i) => {
        w.resolve(rows[i] as R);
      });
    } catch (error) {
      for (const w of batch) w.reject(error);
    }
  }

  function flush(): void {
    scheduled = false;
    while (running < inFlight && queue.length > 0) {
      const batch = queue.length <= maxBatch ? queue : queue.slice(0, maxBatch);
      queue = queue.length <= maxBatch ? [] : queue.slice(maxBatch);
      running += 1;
      void answer(batch).finally(() => {
        running -= 1;
        schedule();
      });
    }
  }

  function schedule(): void {
    if (scheduled || queue.length === 0 || running >= inFlight) return;
    scheduled = true;
    // After the requests already read from the sockets have asked theirs: they share it.
    setImmediate(flush);
  }

  return (query) =>
    new Promise<R>((resolve, reject) => {
      queue.push({ query, resolve, reject });
      schedule();
    });
}
