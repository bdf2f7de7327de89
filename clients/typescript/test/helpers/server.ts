import type { AddressInfo } from 'node:net';
import type { PublishedVersion } from '../../../../src/templates/schemas.js';
import { startTestApp, type TestApp } from '../../../../test/helpers/app.js';
import {
  publish,
  type SeededTenant,
  seedTemplate,
  seedTenant,
} from '../../../../test/helpers/seed.js';
import type { TestStore } from '../../../../test/helpers/stores.js';

export interface ServedTenant {
  t: TestApp;
  /** Where the service listens, on 127.0.0.1. */
  baseUrl: string;
  tenant: SeededTenant;
  /** The API key of the tenant. */
  apiKey: string;
  /** A template with one published version (re-consent allowed). */
  code: string;
  version: PublishedVersion;
  close(): Promise<void>;
}

/**
 * The whole service listening on a loopback port, on a fresh store of the given kind, with a
 * tenant, its API key and a template with a published version.
 */
export async function serveTenant(
  store: TestStore,
  env: Record<string, string> = {},
): Promise<ServedTenant> {
  // A test app listens on loopback already (test/helpers/app.ts).
  const t = await startTestApp(store, env);
  const { port } = t.app.server.address() as AddressInfo;
  const tenant = await seedTenant(t.db);
  const code = await seedTemplate(t.db, tenant.tenant.id);
  const version = await publish(t.db, tenant.tenant.id, code);
  return {
    t,
    baseUrl: `http://127.0.0.1:${port}`,
    tenant,
    apiKey: tenant.apiKey.key,
    code,
    version,
    close: () => t.close(),
  };
}

/** The ids of every decision the service holds for a customer, read through the API. */
export async function decisionIds(served: ServedTenant, customerId: string): Promise<string[]> {
  const response = await served.t.app.inject({
    method: 'GET',
    url: `/api/v1/customers/${encodeURIComponent(customerId)}/consents`,
    headers: served.tenant.headers,
  });
  if (response.statusCode !== 200) throw new Error(`history answered ${response.statusCode}`);
  const history = JSON.parse(response.body).data.history as { decision_id: string }[];
  return history.map((entry) => entry.decision_id);
}
