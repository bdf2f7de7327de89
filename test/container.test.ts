/**
 * What the container files say, read as files: no image is built here (the tests need no
 * container engine, and the base images come from a registry). docs/container.md says when an
 * image was last built and run.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { repoRoot } from './helpers/process.js';

const read = (path: string) => readFileSync(join(repoRoot, path), 'utf8');

/** The Dockerfile's instructions, one per entry, continuation lines joined. */
function instructions(): Array<{ keyword: string; rest: string }> {
  return read('Dockerfile')
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const [keyword = '', ...rest] = line.split(/\s+/);
      return { keyword: keyword.toUpperCase(), rest: rest.join(' ') };
    });
}

/** A Compose duration (`1m30s`, `20s`, `1500ms`) in milliseconds. */
function durationMs(value: string): number {
  const units: Record<string, number> = { h: 3_600_000, m: 60_000, s: 1_000, ms: 1, us: 0.001 };
  const parts = [...value.matchAll(/(\d+(?:\.\d+)?)(h|ms|us|m|s)/g)];
  expect(parts.map((part) => part[0]).join(''), `a duration: ${value}`).toBe(value);
  return parts.reduce(
    (sum, [, amount, unit]) => sum + Number(amount) * (units[unit ?? ''] ?? 0),
    0,
  );
}

describe('the container image', () => {
  it('builds and runs every stage on Node.js 22 LTS', () => {
    const all = instructions();
    const stages = new Set(
      all.flatMap(({ keyword, rest }) =>
        keyword === 'FROM' ? (rest.split(/\s+AS\s+/i)[1] ?? []) : [],
      ),
    );
    const bases = all
      .filter(({ keyword }) => keyword === 'FROM')
      .map(({ rest }) => rest.split(/\s+/)[0] ?? '')
      .filter((image) => !stages.has(image));
    expect(bases.length).toBeGreaterThan(0);
    for (const image of bases) expect(image).toMatch(/^node:22-/);
  });

  it('runs the service as node bin/consent-service serve in /app, where that command line is', () => {
    const all = instructions();
    const final = all.slice(all.findLastIndex(({ keyword }) => keyword === 'FROM'));
    expect(final.filter(({ keyword }) => keyword === 'WORKDIR').at(-1)?.rest).toBe('/app');
    expect(final.some(({ keyword, rest }) => keyword === 'COPY' && rest === 'bin ./bin')).toBe(
      true,
    );
    expect(final.find(({ keyword }) => keyword === 'CMD')?.rest).toBe(
      '["node", "bin/consent-service", "serve"]',
    );
  });

  it('copies into the build stage every script that npm run build:service runs', () => {
    const all = instructions();
    const build = all.findIndex(
      ({ keyword, rest }) => keyword === 'RUN' && rest === 'npm run build:service',
    );
    expect(build).toBeGreaterThan(0);
    const stage = all.slice(
      all.findLastIndex(({ keyword }, at) => keyword === 'FROM' && at < build),
      build,
    );
    const copied = stage
      .filter(({ keyword }) => keyword === 'COPY')
      .map(({ rest }) => rest.split(/\s+/)[0] ?? '');
    const { scripts } = JSON.parse(read('package.json')) as { scripts: Record<string, string> };
    const run = [...(scripts['build:service'] ?? '').matchAll(/node (scripts\/\S+)/g)].map(
      (match) => match[1] ?? '',
    );
    expect(run).toContain('scripts/build-banner.mjs');
    for (const script of run) {
      const inStage = copied.some(
        (source) => script === source || script.startsWith(`${source.replace(/\/$/, '')}/`),
      );
      expect(inStage, `${script} copied into the build stage`).toBe(true);
    }
  });
});

describe('compose.yaml', () => {
  it('lets the service stop for longer than SHUTDOWN_TIMEOUT_MS before it is killed', () => {
    const compose = parse(read('compose.yaml')) as {
      services: Record<
        string,
        { stop_grace_period?: string; environment?: Record<string, unknown> }
      >;
    };
    const service = compose.services.consent;
    expect(service).toBeDefined();
    // 10 000 ms: the default in docs/configuration.md, when compose sets none.
    const shutdownMs = Number(service?.environment?.SHUTDOWN_TIMEOUT_MS ?? 10_000);
    // Without stop_grace_period, Compose waits 10 s before SIGKILL.
    const graceMs = durationMs(service?.stop_grace_period ?? '10s');
    // Past the requests in flight, the store is closed: a few seconds more.
    expect(graceMs).toBeGreaterThanOrEqual(shutdownMs + 5_000);
  });
});
