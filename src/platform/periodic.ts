/**
 * A background pass run every `intervalMs`, start to start (at once after one that took
 * longer), one at a time: a pass asked for while one runs runs right after it. The decision
 * log's integrator and the webhook dispatcher are such loops, on every instance.
 */
export interface Periodic {
  /** Runs a pass now (or joins the one running, and one more after it); resolves when over. */
  run(): Promise<void>;
  /** No pass starts any more; resolves when the one in progress is over. */
  stop(): Promise<void>;
}

export function startPeriodic(
  intervalMs: number,
  pass: () => Promise<void>,
  /** A pass that threw: the loop goes on with the next. */
  failed: (error: unknown) => void,
): Periodic {
  let running: Promise<void> | undefined;
  let again = false;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let passStartedAt = performance.now();

  function run(): Promise<void> {
    if (stopped) return Promise.resolve();
    if (running) {
      again = true;
      return running;
    }
    passStartedAt = performance.now();
    running = (async () => {
      do {
        again = false;
        try {
          await pass();
        } catch (error) {
          failed(error);
        }
      } while (again && !stopped);
    })().finally(() => {
      running = undefined;
      schedule();
    });
    return running;
  }

  function schedule() {
    if (stopped) return;
    clearTimeout(timer);
    const sincePassStarted = performance.now() - passStartedAt;
    timer = setTimeout(() => void run(), Math.max(0, intervalMs - sincePassStarted));
    timer.unref();
  }

  schedule();
  return {
    run,
    stop: async () => {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
