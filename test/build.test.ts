import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Bundle, staleOutputs } from './helpers/build.js';

/** The check the test run makes after building `dist/`, before any test runs. */
describe('the freshness check of dist/', () => {
  let root: string;
  const src = () => join(root, 'src');
  const dist = () => join(root, 'dist');
  /** Writes a file whose modification time is `secondsAgo` in the past. */
  const file = (path: string, secondsAgo: number) => {
    writeFileSync(path, '');
    const when = new Date(Date.now() - secondsAgo * 1000);
    utimesSync(path, when, when);
  };

  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'consent-build-'));
    mkdirSync(join(root, 'src', 'platform'), { recursive: true });
    mkdirSync(join(root, 'dist', 'platform'), { recursive: true });
  });
  afterEach(() => {
    rmSync(root, { recursive: true, force: true });
  });

  it('reports a source file newer than its compiled file', () => {
    file(join(src(), 'app.ts'), 100);
    file(join(dist(), 'app.js'), 50);
    file(join(src(), 'platform', 'config.ts'), 10);
    file(join(dist(), 'platform', 'config.js'), 60);
    expect(staleOutputs(src(), dist())).toEqual([join('platform', 'config.ts')]);
  });

  it('reports a source file with no compiled file', () => {
    file(join(src(), 'app.ts'), 100);
    file(join(dist(), 'app.js'), 50);
    file(join(src(), 'platform', 'new.ts'), 10);
    expect(staleOutputs(src(), dist())).toEqual([join('platform', 'new.ts')]);
  });

  it('reports nothing when every compiled file is at least as new as its source', () => {
    file(join(src(), 'app.ts'), 100);
    file(join(dist(), 'app.js'), 100);
    file(join(src(), 'platform', 'config.ts'), 60);
    file(join(dist(), 'platform', 'config.js'), 10);
    file(join(src(), 'platform', 'types.d.ts'), 5);
    expect(staleOutputs(src(), dist())).toEqual([]);
  });

  describe('with a folder built into one bundle', () => {
    const banner: Bundle = {
      sources: join('cookies', 'banner'),
      output: join('cookies', 'banner.js'),
      script: join('scripts', 'build-banner.mjs'),
    };
    beforeEach(() => {
      mkdirSync(join(src(), 'cookies', 'banner'), { recursive: true });
      mkdirSync(join(dist(), 'cookies'), { recursive: true });
      file(join(src(), 'app.ts'), 100);
      file(join(dist(), 'app.js'), 100);
    });

    it('asks no compiled file per source of the bundle when the bundle is newer than them', () => {
      file(join(src(), 'cookies', 'banner', 'main.ts'), 60);
      file(join(src(), 'cookies', 'banner', 'dialog.ts'), 50);
      file(join(dist(), 'cookies', 'banner.js'), 10);
      expect(staleOutputs(src(), dist(), [banner])).toEqual([]);
    });

    it('reports a source of the bundle newer than the bundle', () => {
      file(join(src(), 'cookies', 'banner', 'main.ts'), 60);
      file(join(src(), 'cookies', 'banner', 'dialog.ts'), 5);
      file(join(dist(), 'cookies', 'banner.js'), 10);
      expect(staleOutputs(src(), dist(), [banner])).toEqual([
        join('cookies', 'banner', 'dialog.ts'),
      ]);
    });

    it('reports every source of the bundle when the bundle is missing', () => {
      file(join(src(), 'cookies', 'banner', 'main.ts'), 60);
      file(join(src(), 'cookies', 'banner-script.ts'), 60);
      file(join(dist(), 'cookies', 'banner-script.js'), 10);
      expect(staleOutputs(src(), dist(), [banner])).toEqual([join('cookies', 'banner', 'main.ts')]);
    });
  });
});
