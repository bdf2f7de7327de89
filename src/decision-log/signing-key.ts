import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../platform/config.js';
import { readOrCreateSecret } from '../platform/secret-file.js';
import { generateNoteKeys, type NoteSigner, parseSignerKey } from '../proof/index.js';

export class SigningKeyError extends Error {}

/**
 * The key every checkpoint is signed with: `LOG_SIGNING_KEY` when set, else the file
 * `LOG_SIGNING_KEY_FILE`, created (mode 0600) on first start. Several instances of one
 * service must share it; an instance holding another key does not integrate (see integrator.ts).
 */
export function loadSigningKey(
  config: Pick<Config, 'logSigningKey' | 'logSigningKeyFile' | 'publicBaseUrl'>,
  log: Pick<FastifyBaseLogger, 'warn'>,
): NoteSigner {
  const text = config.logSigningKey ?? readOrCreate(config, log);
  const signer = parseSignerKey(text.trim());
  if (!signer.ok) {
    throw new SigningKeyError(`The decision log's signing key is not valid: ${signer.reason}`);
  }
  return signer.value;
}

function readOrCreate(
  config: Pick<Config, 'logSigningKeyFile' | 'publicBaseUrl'>,
  log: Pick<FastifyBaseLogger, 'warn'>,
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
