/**
 * Which Chromium the browser tests run, so that `npm ci && npm test` needs nothing else on the
 * machine: `CHROMIUM_PATH` when set (a path, or `packaged`), else the system's
 * (`/usr/bin/chromium`, Debian's), else the one the install brings, the dev dependency
 * `@sparticuz/chromium` (a headless Chromium for Linux x64 inside the npm package,
 * brotli-compressed).
 *
 * The system's comes first: it is a full browser that its distribution keeps patched, and the
 * one the back-office is looked at with; the packaged one is the fallback that makes a machine
 * without it work, pinned to the last release that runs on Node.js 20.
 */
import {
  createReadStream,
  createWriteStream,
  existsSync,
  mkdirSync,
  renameSync,
  rmSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createBrotliDecompress } from 'node:zlib';
import { repoRoot } from '../helpers/process.js';

export const systemChromium = '/usr/bin/chromium';

export async function chromiumExecutable(
  setting: string | undefined = process.env.CHROMIUM_PATH,
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
 * there as done, so two test files starting at once would run each other's half-written binary,
 * and a run stopped while unpacking would leave a broken one behind for good. Here each process
 * writes a file of its own and renames it into place when it is whole (a rename is atomic).
 */
async function packagedChromium(): Promise<string> {
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    throw new Error(
      `The packaged Chromium is for Linux x64 only (this is ${process.platform} ${process.arch}): ` +
        'set CHROMIUM_PATH to a Chromium or Chrome.',
    );
  }
  // The package's entry is build/{cjs,esm}/index.*; its compressed files are in bin/, beside.
  const packageDir = join(
    dirname(createRequire(import.meta.url).resolve('@sparticuz/chromium')),
    '..',
    '..',
  );
  const { version } = createRequire(import.meta.url)(join(packageDir, 'package.json')) as {
    version: string;
  };
  const target = join(repoRoot, 'node_modules', '.cache', `chromium-${version}`, 'chromium');
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
