import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, settingNames } from '../src/platform/config.js';

describe('configuration', () => {
  it("every setting the service reads is in the README's configuration table", () => {
    const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
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
  ])('fails fast on %s=%s, naming the variable', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrow(name);
  });
});
