import { type Config, publicBaseUrlOf, publicBaseUrlPattern } from './config.js';
import type { Executor } from './db.js';
import { AppError } from './errors.js';
import { findStoreSetting, saveStoreSetting } from './store-settings-repository.js';

/**
 * The address clients reach the service at is one for the whole service, not one per process: a
 * command run beside a server whose environment says nothing of it would otherwise print its URLs
 * (a version's `file_url`, a banner's tag) on `localhost:3000`. So the store keeps it: `serve`
 * records the one it runs with, `settings public-base-url` sets it, and the command line prints
 * on it unless its own `PUBLIC_BASE_URL` says otherwise.
 */
const setting = 'public_base_url';

/** The public base URL kept with the store; undefined when none was recorded or set. */
export function storedPublicBaseUrl(db: Executor): Promise<string | undefined> {
  return findStoreSetting(db, setting);
}

/**
 * Sets the public base URL kept with the store, as the operator gives it (without a trailing
 * slash); `400 1001` naming `url` for anything but an http(s) URL.
 */
export async function setPublicBaseUrl(db: Executor, text: string): Promise<string> {
  const url = publicBaseUrlOf(text.trim());
  if (!publicBaseUrlPattern.test(url) || !URL.canParse(url)) {
    throw new AppError('invalidRequest', {
      details: [{ field: 'url', issue: 'must be an http:// or https:// URL' }],
    });
  }
  await saveStoreSetting(db, setting, url, { replace: true });
  return url;
}

/**
 * What `serve` keeps once it listens: its `PUBLIC_BASE_URL`, in place of any other; without one,
 * the address it listens on (`port`, the one it got), only when the store has none, so that a URL
 * an operator set, or another instance's `PUBLIC_BASE_URL`, is not put back to `localhost`.
 */
export async function recordServedBaseUrl(
  db: Executor,
  config: Pick<Config, 'publicBaseUrl' | 'publicBaseUrlGiven' | 'host'>,
  port: number,
): Promise<void> {
  if (config.publicBaseUrlGiven) {
    await saveStoreSetting(db, setting, config.publicBaseUrl, { replace: true });
    return;
  }
  await saveStoreSetting(db, setting, listeningUrl(config.host, port), { replace: false });
}

/**
 * The configuration a management command runs with: its own `PUBLIC_BASE_URL` when its
 * environment sets one, else the store's, else the port's default (as before there was one).
 */
export async function withStoredBaseUrl(db: Executor, config: Config): Promise<Config> {
  if (config.publicBaseUrlGiven) return config;
  const stored = await storedPublicBaseUrl(db);
  return stored === undefined ? config : Object.freeze({ ...config, publicBaseUrl: stored });
}

/** Hosts that mean "this machine" to a client on it: the loopbacks and the wildcards. */
const thisMachine = new Set(['127.0.0.1', '::1', '0.0.0.0', '::', 'localhost']);

/** The URL a client on this machine reaches a server listening on `host` and `port` at. */
function listeningUrl(host: string, port: number): string {
  const name = thisMachine.has(host) ? 'localhost' : host.includes(':') ? `[${host}]` : host;
  return `http://${name}:${port}`;
}
