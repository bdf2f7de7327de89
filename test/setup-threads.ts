/**
 * Run before every test file: the service's threads (the SQLite writer and readers) start from
 * `dist/`, which `global-setup.ts` has built from `src/` for this run, instead of loading their
 * TypeScript through tsx (a second or more each start, a few hundred milliseconds compiled).
 */
import { useBuiltThreads } from '../src/platform/thread-entry.js';

useBuiltThreads(new URL('../src/', import.meta.url), new URL('../dist/', import.meta.url));
