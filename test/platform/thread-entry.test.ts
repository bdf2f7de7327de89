/**
 * Which modules a thread loads (`threadModules`): from source as given, or all of them their
 * compiled twins once `useBuiltThreads` named where those are, never a mix; and compiled ones
 * as the bundle's entries for them (`dist/bundle/threads.json`), when all have one.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { threadModules, useBuiltThreads } from '../../src/platform/thread-entry.js';

describe('threadModules', () => {
  let root = '';
  const url = (path: string) => pathToFileURL(join(root, path)).href;

  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'thread-entry-'));
    for (const path of ['src/w/entry.ts', 'src/app/kinds.ts', 'test/kinds.ts']) {
      mkdirSync(join(root, path, '..'), { recursive: true });
      writeFileSync(join(root, path), '');
    }
    for (const path of ['dist/w/entry.js', 'dist/app/kinds.js']) {
      mkdirSync(join(root, path, '..'), { recursive: true });
      writeFileSync(join(root, path), '');
    }
    useBuiltThreads(new URL(url('src/')), new URL(url('dist/')));
  });
  afterAll(() => {
    // Back to this run's own build, as setup-threads.ts set it.
    useBuiltThreads(
      new URL('../../src/', import.meta.url),
      new URL('../../dist/', import.meta.url),
    );
    rmSync(root, { recursive: true, force: true });
  });

  it('answers the compiled twins when every module has one', () => {
    expect(threadModules([url('src/w/entry.ts'), url('src/app/kinds.ts')])).toEqual([
      url('dist/w/entry.js'),
      url('dist/app/kinds.js'),
    ]);
  });

  describe('with a bundle naming entries for compiled modules', () => {
    let bundled = '';
    const at = (path: string) => pathToFileURL(join(bundled, path)).href;
    beforeAll(() => {
      bundled = mkdtempSync(join(tmpdir(), 'thread-bundle-'));
      mkdirSync(join(bundled, 'dist', 'bundle'), { recursive: true });
      writeFileSync(
        join(bundled, 'dist', 'bundle', 'threads.json'),
        JSON.stringify({ 'w/entry.js': 'thread-entry.js', 'app/kinds.js': 'thread-kinds.js' }),
      );
    });
    afterAll(() => rmSync(bundled, { recursive: true, force: true }));

    it("answers the bundle's entries when every module has one", () => {
      expect(threadModules([at('dist/w/entry.js'), at('dist/app/kinds.js')])).toEqual([
        at('dist/bundle/thread-entry.js'),
        at('dist/bundle/thread-kinds.js'),
      ]);
    });

    it('answers the modules as given when one has no entry in the bundle', () => {
      const mixed = [at('dist/w/entry.js'), at('dist/w/other.js')];
      expect(threadModules(mixed)).toEqual(mixed);
    });
  });

  it('answers the modules as given when one has no twin: outside the sources, or not built', () => {
    const outside = [url('src/w/entry.ts'), url('test/kinds.ts')];
    expect(threadModules(outside)).toEqual(outside);
    writeFileSync(join(root, 'src/w/new.ts'), '');
    const unbuilt = [url('src/w/new.ts')];
    expect(threadModules(unbuilt)).toEqual(unbuilt);
  });
});
