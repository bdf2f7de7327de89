/**
 * Which Chromium to run (the cookie scanner's, and the browser tests'): a path, or `packaged`;
 * else the system's (`/usr/bin/chromium`, Debian's, which the container image installs), else the
 * one the install brings, the optional dependency `@sparticuz/chromium` (a headless Chromium for
 * Linux x64 inside the npm package, brotli-compressed).
 *
 * The system's comes first: it is a full browser that its distribution keeps patched; the
 * packaged one is the fallback that makes a machine without it work, pinned to the last release
 * that runs on Node.js 20.
 */
import {
  createReadStream,
  createWriteStream,
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createBrotliDecompress } from 'node:zlib';

export const systemChromium = '/usr/bin/chromium';

/** The Chromium to run, from the setting (`CHROMIUM_PATH`): see the module's comment. */
export async function chromiumExecutable(
  setting: string | undefined,
  system: string = systemChromium,
): Promise<string> {
  if (setting === 'packaged') return packagedChromium();
  if (setting !== undefined && setting !== '') {
    if (!existsSync(setting)) throw new Error(`No Chromium at ${setting} (CHROMIUM_PATH)`);
    return setting;
  }
  return existsSync(system) ? system : packagedChromium();
}

/**
 * The packaged Chromium, unpacked once per install into node_modules/.cache. The package's own
 * `executablePath()` is not used: it writes to a fixed /tmp/chromium and takes any file found
 * there as done, so two processes starting at once would run each other's half-written binary,
 * and one stopped while unpacking would leave a broken one behind for good. Here each process
 * writes a file of its own and renames it into place when it is whole (a rename is atomic).
 */
async function packagedChromium(): Promise<string> {
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    throw new Error(
      `The packaged Chromium is for Linux x64 only (this is ${process.platform} ${process.arch}): ` +
        'set CHROMIUM_PATH to a Chromium or Chrome.',
    );
  }
  let entry: string;
  try {
    entry = createRequire(import.meta.url).resolve('@sparticuz/chromium');
  } catch {
    throw new Error(
      'No Chromium: none at /usr/bin/chromium and the optional package @sparticuz/chromium is not ' +
        'installed; install Chromium or set CHROMIUM_PATH.',
    );
  }
  // The package's entry is build/{cjs,esm}/index.*; its compressed files are in bin/, beside.
  const packageDir = join(dirname(entry), '..', '..');
  const { version } = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as {
    version: string;
  };
  // node_modules/@sparticuz/chromium -> node_modules/.cache
  const target = join(packageDir, '..', '..', '.cache', `chromium-${version}`, 'chromium');
  if (existsSync(target)) return target;
  mkdirSync(dirname(target), { recursive: true });
  const partial = `${target}.${process.pid}.partial`;
  try {
    await pipeline(
      createReadStream(join(packageDir, 'bin', 'chromium.br')),
      createBrotliDecompress(),
      createWriteStream(partial, { mode: 0o755 }),
    );
    renameSync(partial, target);
  } finally {
    rmSync(partial, { force: true });
  }
  return target;
}
