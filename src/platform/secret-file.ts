import { linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * A secret kept in a file (mode 0600): read when the file exists, else made by `make`, written
 * and reported through `created`. The new secret is written whole under another name, then
 * linked in place: of two processes starting at once, one links its secret and the other finds
 * the link taken and reads that one, so both end up with the same.
 */
export function readOrCreateSecret(
  file: string,
  make: () => string,
  created: (secret: string) => void,
): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const secret = make();
  mkdirSync(dirname(file), { recursive: true });
  const partial = `${file}.${process.pid}.tmp`;
  writeFileSync(partial, `${secret}\n`, { mode: 0o600 });
  try {
    linkSync(partial, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return readFileSync(file, 'utf8');
    throw error;
  } finally {
    unlinkSync(partial);
  }
  created(secret);
  return secret;
}
