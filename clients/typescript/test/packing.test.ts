import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const clientRoot = fileURLToPath(new URL('..', import.meta.url));

/** Whether git ignores a path of the repository (`git check-ignore`: exit 0 ignored, 1 not). */
function ignoredByGit(path: string): boolean {
  try {
    execFileSync('git', ['check-ignore', '--quiet', '--no-index', path], { cwd: clientRoot });
    return true;
  } catch (error) {
    if ((error as { status?: number }).status === 1) return false;
    throw error;
  }
}

describe('packing the client', () => {
  it('the tarball `npm pack` writes beside the package is ignored by git', () => {
    // The README's install steps pack it here; it must never be committed by mistake.
    expect(ignoredByGit('consent-service-client-0.1.0.tgz')).toBe(true);
    expect(ignoredByGit('consent-service-client-1.2.3.tgz')).toBe(true);
  });
});
