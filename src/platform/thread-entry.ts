import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
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

/** Where sources' compiled twins are, once `useBuiltThreads` was called. */
let twins: { sources: string; built: string } | undefined;

/**
 * From now on, a thread started from source runs the compiled twins of its modules (`dist/`
 * for `src/`), which the caller has just built from the same sources: loading a thread's
 * modules through tsx's loader costs a second or more each start, the compiled ones a few
 * hundred milliseconds. The test run does this (its setup builds `dist/` first and stops when a
 * compiled file is older than its source).
 */
export function useBuiltThreads(sources: URL, built: URL): void {
  twins = { sources: sources.href, built: built.href };
}

/**
 * The modules a thread is to load (its entry first), as given, or all of them compiled twins
 * when `useBuiltThreads` was called and every one has one: a thread runs all of one kind or the
 * other, so that it never holds two copies of a module (a test's own registry of kinds has no
 * twin, and keeps its thread on source).
 */
export function threadModules(modules: readonly string[]): string[] {
  const from = twins;
  if (!from) return [...modules];
  const compiled = modules.map((module) =>
    module.startsWith(from.sources) && module.endsWith('.ts')
      ? `${from.built}${module.slice(from.sources.length, -'.ts'.length)}.js`
      : undefined,
  );
  if (compiled.some((module) => module === undefined || !existsSync(fileURLToPath(module)))) {
    return [...modules];
  }
  return compiled as string[];
}
