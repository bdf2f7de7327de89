/**
 * The product a channel change names, looked up by code (`productByCode`, src/products): kept
 * once read, for each store handle, so a change reads no product from the store; a code the
 * tenant does not have is read again each time, so a product made after a `404` is found at once.
 */
import type { KyselyPlugin, PluginTransformQueryArgs } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/platform/db.js';
import { createProduct, productByCode } from '../../src/products/index.js';
import { expectErrorShape, startTestApp, type TestApp } from '../helpers/app.js';
import { type SeededTenant, seedTenant } from '../helpers/seed.js';
import { stores } from '../helpers/stores.js';

const actor = { actorKind: 'operator', actor: 'test', ip: 'local', userAgent: null } as const;

/** The store as `db`, counting the statements that read the products table. */
function countingProductReads(db: Db): { db: Db; reads: () => number } {
  let reads = 0;
  const plugin: KyselyPlugin = {
    transformQuery(args: PluginTransformQueryArgs) {
      const node = args.node;
      if (node.kind === 'SelectQueryNode' && JSON.stringify(node.from).includes('"products"')) {
        reads += 1;
      }
      return node;
    },
    transformResult: async (args) => args.result,
  };
  return { db: db.withPlugin(plugin), reads: () => reads };
}

describe.each(stores)('the product a channel change names, on $name', (store) => {
  let t: TestApp;
  let a: SeededTenant;

  beforeAll(async () => {
    t = await startTestApp(store);
    a = await seedTenant(t.db);
  });
  afterAll(async () => {
    await t.close();
  });

  const make = (code: string) =>
    t.db
      .transaction()
      .execute((trx) =>
        createProduct(trx, { ...actor, tenantId: a.tenant.id }, a.tenant.id, { code, name: code }),
      );
  const put = (customer: string, product: string) =>
    t.app.inject({
      method: 'PUT',
      url: `/api/v1/customers/${customer}/channels/${product}/email`,
      headers: { ...a.headers, 'content-type': 'application/json' },
      payload: JSON.stringify({ blocked: true }),
    });

  it('is read from the store once, then kept, with its id and code', async () => {
    const made = await make('savings');
    const { db, reads } = countingProductReads(t.db);
    expect(await productByCode(db, a.tenant.id, 'savings')).toEqual({
      id: made.id,
      code: 'savings',
    });
    expect(reads()).toBe(1);
    expect(await productByCode(db, a.tenant.id, 'savings')).toEqual({
      id: made.id,
      code: 'savings',
    });
    expect(reads()).toBe(1);
  });

  it('a code the tenant does not have is 404 1004 each time, read each time', async () => {
    const { db, reads } = countingProductReads(t.db);
    for (const n of [1, 2]) {
      await expect(productByCode(db, a.tenant.id, 'no-such')).rejects.toMatchObject({
        status: 404,
        code: '1004',
      });
      expect(reads()).toBe(n);
    }
  });

  it("another tenant's product of the same code is not this tenant's", async () => {
    const other = await seedTenant(t.db);
    await make('shared');
    // This tenant's first, so that it is kept before the other tenant asks.
    expect((await put('cust-9', 'shared')).statusCode).toBe(201);
    const response = await t.app.inject({
      method: 'PUT',
      url: '/api/v1/customers/cust-9/channels/shared/email',
      headers: { ...other.headers, 'content-type': 'application/json' },
      payload: JSON.stringify({ blocked: true }),
    });
    expect(response.statusCode).toBe(404);
    expect(expectErrorShape(response).code).toBe('1004');
  });

  it('a product made after a change named it (404) is found by the next change at once', async () => {
    const before = await put('cust-1', 'cards');
    expect(before.statusCode).toBe(404);
    expect(expectErrorShape(before).code).toBe('1004');
    await make('cards');
    const after = await put('cust-1', 'cards');
    expect(after.statusCode).toBe(201);
    expect(after.json()).toMatchObject({
      data: { product_code: 'cards', channel: 'email', blocked: true },
    });
  });
});
