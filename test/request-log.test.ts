import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/platform/config.js';
import { createDb, type Db } from '../src/platform/db.js';
import { migrateToLatest } from '../src/platform/migrate.js';
import { testDataKey, testLogKeys } from './helpers/app.js';
import { type SeededTenant, seedTenant } from './helpers/seed.js';
import { sqliteStore } from './helpers/stores.js';

describe('the request log', () => {
  const lines: Array<Record<string, unknown>> = [];
  let app: FastifyInstance;
  let db: Db;
  let drop: () => Promise<void>;
  let a: SeededTenant;

  beforeAll(async () => {
    const created = await sqliteStore.create();
    drop = created.drop;
    const config = loadConfig({
      DATABASE_URL: created.databaseUrl,
      LOG_SIGNING_KEY: testLogKeys.signerKey,
      DATA_ENCRYPTION_KEY: testDataKey.toString('base64'),
    });
    db = createDb(config);
    await migrateToLatest(db, testDataKey);
    a = await seedTenant(db);
    // The service's own logger settings, writing where the test can read them.
    app = await buildApp(config, db, {
      logger: {
        level: 'info',
        redact: ['req.headers["x-system-api-key"]', 'req.headers.authorization'],
        stream: { write: (line: string) => lines.push(JSON.parse(line)) },
      },
    });
    await app.ready();
  });
  afterAll(async () => {
    await app.close();
    await db.destroy();
    await drop();
  });

  it('says once that a request completed, with its id, method, path, status, time and address, and never the key', async () => {
    lines.length = 0;
    const response = await app.inject({
      method: 'GET',
      url: '/api/v1/consent-templates/none_such/latest',
      headers: a.headers,
      remoteAddress: '198.51.100.23',
    });
    expect(response.statusCode).toBe(404);
    const requestLines = lines.filter(
      (l) => l.reqId === response.headers['x-request-id'] && l.msg === 'request completed',
    );
    expect(requestLines).toEqual([
      expect.objectContaining({
        msg: 'request completed',
        level: 30,
        method: 'GET',
        url: '/api/v1/consent-templates/none_such/latest',
        statusCode: 404,
        responseTime: expect.any(Number),
        remoteAddress: '198.51.100.23',
      }),
    ]);
    const key = a.headers['x-system-api-key'] as string;
    expect(JSON.stringify(lines)).not.toContain(key);
  });
});
