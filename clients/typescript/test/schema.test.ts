import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, startTestApp, type TestApp } from '../../../test/helpers/app.js';
import { storeAgnostic } from '../../../test/helpers/stores.js';
import { renderSchema, schemaFile } from '../scripts/render-schema.js';
import { serviceOpenApiDocument } from '../scripts/service-document.js';

describe('the generated types', () => {
  it('src/schema.ts is what openapi-typescript makes of the service document today', async () => {
    const fresh = await renderSchema(await serviceOpenApiDocument());
    const committed = readFileSync(schemaFile, 'utf8');
    expect(committed, 'out of date: run `npm run generate:client` and commit it').toBe(fresh);
  });
});

describe.each(storeAgnostic)('the document the types are made from, on $name', (store) => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp(store);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('is the one the service serves at /api/docs/json, but for the server it names', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/api/docs/json' });
    expect(response.statusCode).toBe(200);
    // Each instance names its own PUBLIC_BASE_URL; the types do not depend on it.
    const { servers, ...served } = json(response);
    expect(servers).toEqual([expect.objectContaining({ url: t.config.publicBaseUrl })]);
    const { servers: _, ...made } = await serviceOpenApiDocument();
    expect(made).toEqual(served);
  });
});
