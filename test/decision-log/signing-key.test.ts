import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { keyName, loadSigningKey, SigningKeyError } from '../../src/decision-log/signing-key.js';
import { generateNoteKeys } from '../../src/proof/index.js';

describe('the decision log signing key', () => {
  const dirs: string[] = [];
  const tempDir = () => {
    const dir = mkdtempSync(join(tmpdir(), 'signing-key-'));
    dirs.push(dir);
    return dir;
  };
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  const logger = () => {
    const warnings: unknown[] = [];
    return { warnings, log: { warn: (...args: unknown[]) => warnings.push(args) } };
  };

  it('is created on first start in the key file (mode 0600), its verifier key logged, and read back the same after', () => {
    const file = join(tempDir(), 'nested', 'log-signing.key');
    const first = logger();
    const config = {
      logSigningKey: undefined,
      logSigningKeyFile: file,
      publicBaseUrl: 'https://consent.example.com',
    };
    const signer = loadSigningKey(config, first.log);
    expect(signer.name).toBe('consent.example.com/consent-log');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, 'utf8')).toMatch(
      /^PRIVATE\+KEY\+consent\.example\.com\/consent-log\+/,
    );
    expect(first.warnings).toHaveLength(1);
    expect(JSON.stringify(first.warnings)).toContain(signer.verifierKey);

    const second = logger();
    expect(loadSigningKey(config, second.log).verifierKey).toBe(signer.verifierKey);
    expect(second.warnings).toEqual([]);
  });

  it('LOG_SIGNING_KEY wins over the file, and no file is written', () => {
    const file = join(tempDir(), 'log-signing.key');
    const keys = generateNoteKeys('elsewhere/consent-log');
    const signer = loadSigningKey(
      { logSigningKey: keys.signerKey, logSigningKeyFile: file, publicBaseUrl: 'http://x' },
      logger().log,
    );
    expect(signer.verifierKey).toBe(keys.verifierKey);
    expect(() => statSync(file)).toThrow();
  });

  it('a key file that does not hold a signer key stops the start with a clear error', () => {
    const file = join(tempDir(), 'log-signing.key');
    writeFileSync(file, 'not a key\n');
    expect(() =>
      loadSigningKey(
        { logSigningKey: undefined, logSigningKeyFile: file, publicBaseUrl: 'http://x' },
        logger().log,
      ),
    ).toThrow(SigningKeyError);
  });

  it.each([
    ['http://localhost:3000', 'localhost:3000/consent-log'],
    ['https://consent.example.com/', 'consent.example.com/consent-log'],
    ['https://example.com/consent', 'example.com/consent/consent-log'],
  ])('the key of %s is named %s', (url, name) => {
    expect(keyName(url)).toBe(name);
  });
});
