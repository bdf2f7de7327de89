#!/usr/bin/env node
/**
 * Bundles the cookie banner (`src/cookies/banner/main.ts`, TypeScript for browsers) into one
 * file, `dist/cookies/banner.js`, that the service serves with a system's configuration written
 * in (`src/cookies/banner-script.ts`): an IIFE, so nothing leaks into the page's globals;
 * minified, since it is on the critical path of every first page view; ES2019, for the browsers
 * sites still see. Run by `npm run build:service` after tsc, and by the tests' global setup.
 */
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));
const output = join(root, 'dist', 'cookies', 'banner.js');

const { outputFiles } = await build({
  entryPoints: [join(root, 'src', 'cookies', 'banner', 'main.ts')],
  tsconfig: join(root, 'src', 'cookies', 'banner', 'tsconfig.json'),
  bundle: true,
  format: 'iife',
  minify: true,
  target: 'es2019',
  sourcemap: false,
  legalComments: 'none',
  write: false,
  logLevel: 'warning',
});
const [bundle] = outputFiles;
if (!bundle) throw new Error('esbuild wrote no bundle');

// A service or test reading the bundle while it is rebuilt sees the old file or the new one,
// never half of one.
mkdirSync(dirname(output), { recursive: true });
const partial = `${output}.${process.pid}.partial`;
writeFileSync(partial, bundle.contents);
renameSync(partial, output);
