#!/usr/bin/env node
/**
 * Bundles the compiled service (`dist/`, which tsc writes file by file) into `dist/bundle/`,
 * what `bin/consent-service` runs: the command line's entry (`dist/cli/main.js`), the settings
 * it reads first (`dist/platform/config.js`) and the tracing SDK it starts before the rest when
 * `OTEL_*` asks for traces (`dist/platform/tracing-sdk.js`), with a chunk for each command loaded
 * when it runs (esbuild's code splitting keeps the command line's lazy imports lazy). The three
 * share their modules' chunks, so a module's state (tracing started or not) is one.
 *
 * Why: Node loads a module file by file, and a `serve` start loaded about 2,600 files (the
 * service's own 576, TypeBox's 683, Kysely's 262, the CommonJS packages' the rest, each of those
 * also scanned for its exports when imported from an ES module). Loading them was over a third of
 * a start's CPU, and of each SQLite writer thread's (docs/performance.md, "Starting").
 *
 * - Bundled: the service's own modules and the packages they import, CommonJS ones included
 *   (a `require` made for each chunk lets their `require` of Node's own modules work), but those
 *   of `external` below, which stay imports of `node_modules` as they were: each reads files
 *   beside its own at run time, or is loaded only for a setting.
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

/**
 * The packages that stay imports, and why. A package that finds files beside its own
 * (`__dirname`, its own `package.json`) would look for them beside the bundle instead.
 */
const external = new Set([
  // A native addon, found beside its own files.
  'better-sqlite3',
  // The browser of the cookie scanner and its driver: loaded for a scan only, with files of their own.
  'playwright-core',
  '@sparticuz/chromium',
  // Serves the API reference's pages from its own folder; reads its own package.json.
  '@fastify/swagger-ui',
  '@fastify/swagger',
  // pg's optional native binding, not installed.
  'pg-native',
]);
// Bundled although they hold such a file: pino's transports, which start a worker from a file
// beside pino's own, and which the service does not use (it writes to a stream, sync or not).

/** Packages loaded only when traces are on (`OTEL_*`): the tracing SDK's, left out of a start without it. */
const tracing = /^@opentelemetry\/|^@fastify\/otel$/;

/** Whether Node loads this file as an ES module: `.mjs`, or `.js` in a package of `"type": "module"`. */
function isEsModule(file) {
  if (file.endsWith('.mjs')) return true;
  if (!file.endsWith('.js')) return false;
  for (let dir = dirname(file); dir !== dirname(dir); dir = dirname(dir)) {
    try {
      return JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).type === 'module';
    } catch (error) {
      if (error.code !== 'ENOENT') throw error;
    }
  }
  return false;
}

/** `@scope/name` or `name` of a bare import (`typebox/value` is `typebox`). */
function packageOf(specifier) {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

/**
 * Packages are bundled, but those of `external`, the tracing SDK's, and the CommonJS ones loaded
 * with `import()` when first used (the password estimator's dictionaries, QR codes): Node loads
 * those then, as before. Bundled, such a package would be a chunk whose only export is its
 * `default` (esbuild cannot know its names), where Node gives its names too.
 */
const packages = {
  name: 'packages',
  setup(on) {
    on.onResolve({ filter: /^[^./]/ }, async ({ path, kind, resolveDir, pluginData }) => {
      if (path.startsWith('node:') || pluginData === packages) return undefined;
      const name = packageOf(path);
      const left = external.has(name) || tracing.test(name);
      if (!left && kind !== 'dynamic-import') return undefined;
      const from = await on.resolve(path, { kind, resolveDir, pluginData: packages });
      if (!left && isEsModule(from.path)) return undefined;
      // Imported from the bundle, it must be the file the importer had: not another version
      // of the package that a package nests in its own node_modules. (Found from `dist/` as
      // from `dist/bundle/`, which has no node_modules of its own and may not exist yet.)
      const fromBundle = await on.resolve(path, { kind, resolveDir: dist, pluginData: packages });
      if (from.path !== fromBundle.path) {
        return {
          errors: [{ text: `${path} from the bundle is ${fromBundle.path}, not ${from.path}` }],
        };
      }
      return { path, external: true };
    });
  },
};

/**
 * What each chunk starts with: a `require` of its own, which the CommonJS packages bundled call
 * for Node's modules (`require('events')`); esbuild's ES module output has none.
 */
const banner = `import { createRequire as createRequireOfChunk } from 'node:module';
const require = createRequireOfChunk(import.meta.url);`;

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
  banner: { js: banner },
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
