import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, startTestApp, type TestApp } from './helpers/app.js';
import { stores } from './helpers/stores.js';

describe.each(stores)('health check on $name', (store) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(store);
  });
  afterAll(async () => {
    await t.close();
  });

  it.each(['/api/health', '/api/v1/health'])(
    'when the store answers, %s is 200 {"status":"ok","success":true} without a key',
    async (url) => {
      const response = await t.app.inject({ method: 'GET', url });
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(json(response)).toEqual({ status: 'ok', success: true });
      expect(response.headers['x-request-id']).toMatch(/^[A-Za-z0-9._:-]{1,128}$/);
    },
  );
});

describe.each(stores)('health check on $name when the store is gone', (store) => {
  it('answers 503 {"status":"unavailable","success":false}', async () => {
    const t = await startTestApp(store);
    try {
      await t.db.destroy();
      for (const url of ['/api/health', '/api/v1/health']) {
        const response = await t.app.inject({ method: 'GET', url });
        expect(response.statusCode).toBe(503);
        expect(json(response)).toEqual({ status: 'unavailable', success: false });
      }
    } finally {
      await t.app.close();
    }
  });
});
