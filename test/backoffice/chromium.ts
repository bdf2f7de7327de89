/**
 * Which Chromium the browser tests run, so that `npm ci && npm test` needs nothing else on the
 * machine: the service's own choice (src/platform/chromium.ts) from `CHROMIUM_PATH` (a path, or
 * `packaged`), else the system's (`/usr/bin/chromium`, Debian's), else the one the install
 * brings (`@sparticuz/chromium`). The back-office is looked at with the system's.
 */
import { chromiumExecutable as pick, systemChromium } from '../../src/platform/chromium.js';

export { systemChromium };

export function chromiumExecutable(
  setting: string | undefined = process.env.CHROMIUM_PATH,
  system: string = systemChromium,
): Promise<string> {
  return pick(setting, system);
}
