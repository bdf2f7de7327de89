import { existsSync, readFileSync } from 'node:fs';
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
 * when `useBuiltThreads` was called and every one has one; then, compiled ones, all of them the
 * bundle's entries for them when every one has one (`bundled`). A thread runs all of one kind
 * or the other, so that it never holds two copies of a module (a test's own registry of kinds
 * has no twin, and keeps its thread on source).
 */
export function threadModules(modules: readonly string[]): string[] {
  return bundled(compiledTwins(modules));
}

function compiledTwins(modules: readonly string[]): string[] {
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

/**
 * Compiled modules of `dist/` as the bundle's entries for them (`dist/bundle/threads.json`,
 * written by `scripts/build-bundle.mjs`), when every one has one: a thread then loads a few
 * chunks instead of its modules file by file, and its entry and the registry share theirs.
 */
function bundled(modules: readonly string[]): string[] {
  const entries = modules.map((module) => {
    const at = module.lastIndexOf('/dist/');
    if (at < 0 || !module.endsWith('.js')) return undefined;
    const dist = module.slice(0, at + '/dist/'.length);
    return bundleEntries(dist)[module.slice(dist.length)];
  });
  return entries.every((entry) => entry !== undefined) ? entries : [...modules];
}

/** By the `dist/` URL: each compiled module the bundle has an entry for, and that entry's URL. */
const bundles = new Map<string, Record<string, string>>();

function bundleEntries(dist: string): Record<string, string> {
  let entries = bundles.get(dist);
  if (!entries) {
    const manifest = new URL('bundle/threads.json', dist);
    const named: Record<string, string> = existsSync(fileURLToPath(manifest))
      ? JSON.parse(readFileSync(manifest, 'utf8'))
      : {};
    entries = Object.fromEntries(
      Object.entries(named).map(([module, entry]) => [module, new URL(entry, manifest).href]),
    );
    bundles.set(dist, entries);
  }
  return entries;
}
