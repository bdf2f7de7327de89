#!/usr/bin/env node
/**
 * Bundles the compiled service (`dist/`, which tsc writes file by file) into `dist/bundle/`,
 * what `bin/consent-service` runs: the command line's entry (`dist/cli/main.js`), the settings
 * it reads first (`dist/platform/config.js`) and the tracing SDK it starts before the rest when
 * `OTEL_*` asks for traces (`dist/platform/tracing-sdk.js`), with a chunk for each command loaded
 * when it runs (esbuild's code splitting keeps the command line's lazy imports lazy). The three
 * share their modules' chunks, so a module's state (tracing started or not) is one.
 *
 * Why: Node loads an ES module file by file, and the service is about 1,700 of them (its own
 * 576, TypeBox's 683, Kysely's 262). Loading them was over a third of a start's CPU; bundled, a
 * `serve` start takes about half the CPU it took (docs/performance.md, "Starting").
 *
 * - Bundled: the service's own modules and the ES module packages that are many files each
 *   (`inlined` below). Every other package stays an import of `node_modules`, as it was: native
 *   addons, CommonJS packages (which read files beside their own, or load optional parts), and
 *   packages the service loads only for a setting (OpenTelemetry, Chromium).
 * - Every `import.meta.url` of the service's modules is rewritten to the URL the module had in
 *   `dist/`, relative to the bundle: what the service finds beside its own files (the cookie
 *   banner, `package.json`, the assets) and the entries of its threads (the SQLite writer and
 *   readers, the registry of kinds) stay where they were, and `threads.json` (below) turns
 *   those into the bundle's entries for them.
 *
 * Run by `npm run build:service` after tsc, and by the tests' global setup.
 */
import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));
const dist = join(root, 'dist');
const output = join(dist, 'bundle');

/**
 * The modules the service's threads start from (the SQLite writer with the registry of kinds it
 * imports, the SQLite readers), each an entry of the bundle too: `threads.json` names each one's
 * entry, and `src/platform/thread-entry.ts` starts a thread from those when all it asks for has one.
 */
const threads = {
  'write-path/sqlite-writer.js': 'thread-sqlite-writer',
  'app/kinds.js': 'thread-kinds',
  'platform/reader-loop.js': 'thread-reader-loop',
};

/** The ES module packages of many files each: bundled. */
const inlined = new Set([
  'typebox',
  'kysely',
  'jose',
  'uuid',
  'diff',
  'csv-parse',
  'csv-stringify',
]);

/** `@scope/name` or `name` of a bare import (`typebox/value` is `typebox`). */
function packageOf(specifier) {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

/** Packages stay imports, but those of `inlined`. */
const packages = {
  name: 'packages',
  setup(on) {
    on.onResolve({ filter: /^[^./]/ }, ({ path }) => {
      if (path.startsWith('node:') || inlined.has(packageOf(path))) return undefined;
      return { path, external: true };
    });
  },
};

/** Each module of `dist/` keeps the URL it had there (above). */
const urls = {
  name: 'module-urls',
  setup(on) {
    const ofDist = new RegExp(`^${dist.replaceAll(sep, '[\\\\/]')}[\\\\/].*\\.js$`);
    on.onLoad({ filter: ofDist }, ({ path }) => {
      const source = readFileSync(path, 'utf8');
      if (!source.includes('import.meta.url')) return undefined;
      const from = relative(output, path).split(sep).join('/');
      const url = `new URL(${JSON.stringify(from)}, import.meta.url).href`;
      return {
        contents: source.replaceAll('import.meta.url', url),
        loader: 'js',
        resolveDir: dirname(path),
      };
    });
  },
};

// Built beside, then put in place whole: a service started while this runs loads the old
// bundle or the new one, never chunks of both.
const partial = `${output}.${process.pid}.partial`;
await build({
  entryPoints: {
    main: join(dist, 'cli', 'main.js'),
    config: join(dist, 'platform', 'config.js'),
    'tracing-sdk': join(dist, 'platform', 'tracing-sdk.js'),
    ...Object.fromEntries(
      Object.entries(threads).map(([module, name]) => [name, join(dist, module)]),
    ),
  },
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  outdir: partial,
  sourcemap: true,
  legalComments: 'none',
  plugins: [packages, urls],
  logLevel: 'warning',
});
writeFileSync(
  join(partial, 'threads.json'),
  `${JSON.stringify(Object.fromEntries(Object.entries(threads).map(([module, name]) => [module, `${name}.js`])), null, 2)}\n`,
);
const previous = `${output}.${process.pid}.previous`;
try {
  renameSync(output, previous);
} catch (error) {
  if (error.code !== 'ENOENT') throw error;
}
renameSync(partial, output);
rmSync(previous, { recursive: true, force: true });
