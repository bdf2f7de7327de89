/**
 * `npm run lint:openapi`: the OpenAPI document the service makes (the one it serves at
 * `/api/docs/json`, built here in process, no server running) written to a file and linted by
 * Redocly CLI with `redocly.yaml`. Any error fails the lint. Redocly's usage reports and update
 * notices are turned off: the lint works offline. `tsx scripts/lint-openapi.ts FILE` keeps the
 * document in FILE.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serviceOpenApiDocument } from '../clients/typescript/scripts/service-document.js';

const kept = process.argv[2];
const folder = kept ? undefined : mkdtempSync(join(tmpdir(), 'consent-openapi-'));
const file = kept ?? join(folder as string, 'openapi.json');
try {
  writeFileSync(file, `${JSON.stringify(await serviceOpenApiDocument(), null, 2)}\n`);
  try {
    execFileSync('npx', ['redocly', 'lint', file, '--config', 'redocly.yaml'], {
      stdio: 'inherit',
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
    });
  } catch {
    // Redocly printed the problems; its exit status fails the lint.
    process.exitCode = 1;
  }
} finally {
  if (folder) rmSync(folder, { recursive: true, force: true });
}
