import { existsSync } from 'node:fs';
import type { Config } from '../platform/config.js';
import type { Executor } from '../platform/db.js';
import { readOrCreateSecret } from '../platform/secret-file.js';
import { generateNoteKeys, type NoteSigner, parseSignerKey } from '../proof/index.js';
import { logVerifierKeys } from './repository.js';

export class SigningKeyError extends Error {}

/** Where a key created now is reported (pino's `warn`, or the command line's stderr). */
export interface SigningKeyLog {
  warn(details: { file: string; verifierKey: string }, message: string): void;
}

/**
 * The key every checkpoint is signed with: `LOG_SIGNING_KEY` when set, else the file
 * `LOG_SIGNING_KEY_FILE`, created (mode 0600) on first start. Several instances of one
 * service must share it; an instance holding another key does not integrate (see integrator.ts).
 */
export function loadSigningKey(
  config: Pick<Config, 'logSigningKey' | 'logSigningKeyFile' | 'publicBaseUrl'>,
  log: SigningKeyLog,
): NoteSigner {
  const text = config.logSigningKey ?? readOrCreate(config, log);
  const signer = parseSignerKey(text.trim());
  if (!signer.ok) {
    throw new SigningKeyError(`The decision log's signing key is not valid: ${signer.reason}`);
  }
  return signer.value;
}

/**
 * `loadSigningKey` for a start about to migrate the store, refusing before anything changes: a
 * store whose logs are signed with another key (an instance misconfigured, or pointed at the
 * wrong store), or whose logs have a key that is not where the settings say (no key file is
 * made then). Every instance of one service signs with one key (docs/proof.md).
 */
export async function checkSigningKey(
  db: Executor,
  config: Pick<Config, 'logSigningKey' | 'logSigningKeyFile' | 'publicBaseUrl'>,
  log: SigningKeyLog,
): Promise<NoteSigner> {
  const keys = await logVerifierKeys(db);
  const file = config.logSigningKeyFile;
  if (config.logSigningKey === undefined && !existsSync(file) && keys.length > 0) {
    throw new SigningKeyError(
      `This store's decision logs are signed with a key, and there is none at ${file}: set LOG_SIGNING_KEY_FILE (or LOG_SIGNING_KEY) to it. Nothing was changed, no key was created.`,
    );
  }
  const signer = loadSigningKey(config, log);
  const others = keys.filter((key) => key !== signer.verifierKey);
  if (others.length > 0) {
    throw new SigningKeyError(
      `The decision log signing key is not the one this store's logs are signed with (theirs: ${others.join(', ')}; this one: ${signer.verifierKey}). Give every instance the same LOG_SIGNING_KEY (or key file). Nothing was changed.`,
    );
  }
  return signer;
}

function readOrCreate(
  config: Pick<Config, 'logSigningKeyFile' | 'publicBaseUrl'>,
  log: SigningKeyLog,
): string {
  const file = config.logSigningKeyFile;
  let verifierKey = '';
  return readOrCreateSecret(
    file,
    () => {
      const keys = generateNoteKeys(keyName(config.publicBaseUrl));
      verifierKey = keys.verifierKey;
      return keys.signerKey;
    },
    () =>
      log.warn(
        { file, verifierKey },
        'created the decision log signing key: keep this file secret and backed up',
      ),
  );
}

/** The service's host and path, e.g. `consent.example.com/consent-log`. */
export function keyName(publicBaseUrl: string): string {
  const url = new URL(publicBaseUrl);
  return `${url.host}${url.pathname.replace(/\/+$/, '')}/consent-log`;
}
