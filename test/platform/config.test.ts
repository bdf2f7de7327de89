import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, settingNames } from '../../src/platform/config.js';
import { hashPassword, verifyPassword } from '../../src/tenants/passwords.js';
import { budget } from '../helpers/time.js';

describe('configuration', () => {
  it("every setting the service reads is in docs/configuration.md's table", () => {
    const readme = readFileSync(new URL('../../docs/configuration.md', import.meta.url), 'utf8');
    expect(settingNames.length).toBeGreaterThan(20);
    const missing = settingNames.filter(
      (name) => !new RegExp(`^\\|\\s*\`${name}\`\\s*\\|`, 'm').test(readme),
    );
    expect(missing).toEqual([]);
  });

  it('has defaults that work on a laptop', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      port: 3000,
      host: '127.0.0.1',
      databaseUrl: 'data/consent.db',
      publicBaseUrl: 'http://localhost:3000',
      logLevel: 'info',
      rateLimitPerMinute: 6000,
      // docs/configuration.md: a receipt is ready within an interval and one pass.
      logIntegrateIntervalMs: 250,
    });
    expect(Object.isFrozen(config)).toBe(true);
  });

  it('reads every variable and drops a trailing slash from PUBLIC_BASE_URL', () => {
    const config = loadConfig({
      PORT: '8080',
      HOST: '0.0.0.0',
      DATABASE_URL: 'file:/var/lib/consent/consent.db',
      PUBLIC_BASE_URL: 'https://consent.example.com/',
      LOG_LEVEL: 'warn',
      RATE_LIMIT_PER_MINUTE: '0',
    });
    expect(config).toMatchObject({
      port: 8080,
      host: '0.0.0.0',
      databaseUrl: 'file:/var/lib/consent/consent.db',
      publicBaseUrl: 'https://consent.example.com',
      logLevel: 'warn',
      rateLimitPerMinute: 0,
    });
  });

  it.each([
    ['PORT', 'eighty'],
    ['PORT', '70000'],
    ['LOG_LEVEL', 'loud'],
    ['RATE_LIMIT_PER_MINUTE', '-1'],
    ['PUBLIC_BASE_URL', 'consent.example.com'],
    ['PASSWORD_HASH_COST', '9'],
    ['PASSWORD_HASH_COST', '21'],
    ['PASSWORD_HASH_COST', 'cheap'],
  ])('fails fast on %s=%s, naming the variable', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrow(name);
  });

  it('takes read replicas for a PostgreSQL store only, as PostgreSQL URLs', () => {
    const primary = 'postgres://app@db-primary:5432/consent';
    expect(
      loadConfig({
        DATABASE_URL: primary,
        DATABASE_READ_URL: 'postgres://app@db-r1/consent, postgresql://app@db-r2/consent',
      }),
    ).toMatchObject({
      databaseReadUrls: ['postgres://app@db-r1/consent', 'postgresql://app@db-r2/consent'],
      databaseReadMaxWaitMs: 50,
    });
    expect(loadConfig({ DATABASE_URL: primary }).databaseReadUrls).toEqual([]);
    for (const env of [
      { DATABASE_READ_URL: 'postgres://app@db-r1/consent' },
      { DATABASE_URL: primary, DATABASE_READ_URL: 'data/replica.db' },
      { DATABASE_URL: primary, DATABASE_READ_URL: ' , ' },
    ]) {
      expect(() => loadConfig(env)).toThrow(ConfigError);
      expect(() => loadConfig(env)).toThrow('DATABASE_READ_URL');
    }
  });

  // The one test that hashes at the production cost (OWASP's scrypt floor); the others run cheap.
  it(
    'hashes passwords by default with scrypt at N=2^17, r=8, p=1, and verifies them',
    async () => {
      const config = loadConfig({});
      const hash = await hashPassword('a long enough password', config.passwordHashCost);
      const [scheme, n, r, p, salt, key] = hash.split('$');
      expect({ scheme, n, r, p }).toEqual({ scheme: 'scrypt', n: '131072', r: '8', p: '1' });
      expect(Buffer.from(salt ?? '', 'base64url')).toHaveLength(16);
      expect(Buffer.from(key ?? '', 'base64url')).toHaveLength(32);
      expect(await verifyPassword('a long enough password', hash)).toBe(true);
    },
    budget(60_000),
  );

  it('PASSWORD_HASH_COST sets log2 of N for new hashes; a hash of another cost still verifies', async () => {
    const config = loadConfig({ PASSWORD_HASH_COST: '10' });
    const cheap = await hashPassword('a long enough password', config.passwordHashCost);
    expect(cheap.split('$').slice(0, 4)).toEqual(['scrypt', '1024', '8', '1']);
    // Made at cost 11, checked by a service configured for 10: the hash carries its parameters.
    const other = await hashPassword('a long enough password', 11);
    expect(other.split('$')[1]).toBe('2048');
    expect(await verifyPassword('a long enough password', other)).toBe(true);
    expect(await verifyPassword('a long enough password', cheap)).toBe(true);
  });
});
