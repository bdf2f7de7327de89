import type { Worker } from 'node:worker_threads';

/**
 * A thread's `Worker` arguments: the built service runs the thread's compiled entry; from source
 * (the tests, `tsx`) the entry is TypeScript, which the thread loads through tsx's loader,
 * registered in the thread first.
 */
export function workerArguments(
  entry: URL,
  workerData: unknown,
): ConstructorParameters<typeof Worker> {
  if (!entry.pathname.endsWith('.ts')) return [entry, { workerData }];
  const bootstrap = `import('tsx/esm/api').then(({ register }) => { register(); return import(${JSON.stringify(entry.href)}); })`;
  return [bootstrap, { eval: true, workerData }];
}
