import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { dataKey, type SealedCustomer } from './dataset.js';

/** Customers `from` to `to - 1` of a tenant, sealed under the data key (base64). */
export interface StepRequest {
  dataKey: string;
  tenantId: string;
  from: number;
  to: number;
}

/** A step's customers, sealed, in customer order: `customers[j]` is customer `from + j`. */
export interface SealedStep {
  from: number;
  to: number;
  customers: SealedCustomer[];
}

/**
 * The generated customers of a tenant, sealed (dataset.ts) a step of `perStep` customers at a
 * time by a child process (seal-worker.ts), which seals the next step while the loader stores
 * this one: sealing takes about as long as storing, and each gets a core. A child process rather
 * than a worker thread: it loads TypeScript the way this process does (`--import tsx`), which
 * worker threads do not.
 */
export async function* sealedSteps(
  tenantId: string,
  total: number,
  perStep: number,
): AsyncGenerator<SealedStep> {
  const child = fork(fileURLToPath(new URL('./seal-worker.ts', import.meta.url)), {
    serialization: 'advanced',
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  try {
    const key = dataKey.toString('base64');
    const ask = (from: number) => {
      if (from >= total) return undefined;
      const asked = sealed(child, {
        dataKey: key,
        tenantId,
        from,
        to: Math.min(total, from + perStep),
      });
      // Awaited once the loader has stored the step before; until then, not unhandled.
      asked.catch(() => {});
      return asked;
    };
    let next = ask(0);
    for (let from = 0; next; from += perStep) {
      const step = await next;
      next = ask(from + perStep);
      yield step;
    }
  } finally {
    child.kill();
  }
}

function sealed(child: ChildProcess, request: StepRequest): Promise<SealedStep> {
  return new Promise((resolve, reject) => {
    const settle = () => {
      child.off('message', onMessage);
      child.off('error', onError);
      child.off('exit', onExit);
    };
    const onMessage = (step: unknown) => {
      settle();
      resolve(step as SealedStep);
    };
    const onError = (error: Error) => {
      settle();
      reject(error);
    };
    const onExit = (code: number | null, signal: string | null) => {
      settle();
      reject(new Error(`the sealing process exited (${signal ?? code})`));
    };
    child.on('message', onMessage);
    child.on('error', onError);
    child.on('exit', onExit);
    child.send(request);
  });
}
