import { randomBytes } from 'node:crypto';
import { buildApp } from '../../../src/app/app.js';
import { loadConfig } from '../../../src/platform/config.js';
import { createDb } from '../../../src/platform/db.js';
import { migrateToLatest } from '../../../src/platform/migrate.js';
import { generateNoteKeys } from '../../../src/proof/index.js';

/**
 * The OpenAPI document the service serves at `/api/docs/json`, made by the service's own code in
 * this process: the whole app on an in-memory SQLite store with throwaway keys (so that no key
 * file is written), made ready and closed, never listening.
 */
export async function serviceOpenApiDocument(): Promise<Record<string, unknown>> {
  const dataKey = randomBytes(32);
  const config = loadConfig({
    DATABASE_URL: ':memory:',
    LOG_SIGNING_KEY: generateNoteKeys('openapi.invalid/consent-log').signerKey,
    DATA_ENCRYPTION_KEY: dataKey.toString('base64'),
  });
  const db = createDb(config);
  try {
    await migrateToLatest(db, dataKey);
    const app = await buildApp(config, db, { logger: false });
    try {
      await app.ready();
      return app.swagger() as unknown as Record<string, unknown>;
    } finally {
      await app.close();
    }
  } finally {
    await db.destroy();
  }
}
