import { createHash, randomUUID } from 'node:crypto';
import { addTenantWithAdmin, prepareTenantRegistration } from '../../src/accounts/registration.js';
import { generateKey } from '../../src/api-keys/keys.js';
import type { CreatedApiKey } from '../../src/api-keys/schemas.js';
import { createApiKey } from '../../src/api-keys/service.js';
import type { Db, Trx } from '../../src/platform/db.js';
import { newId } from '../../src/platform/ids.js';
import { createCatalog } from '../../src/templates/catalog.js';
import type { PublishedVersion } from '../../src/templates/schemas.js';
import {
  createDraftVersion,
  createTemplate,
  getTemplateByCode,
  presentVersion,
  publishDraft,
  type VersionWithCode,
} from '../../src/templates/service.js';
import type { TenantView } from '../../src/tenants/schemas.js';
import { insertNewTenant } from '../../src/tenants/service.js';

import { testPasswordHashCost } from './time.js';

let counter = 0;

/** A short name no other test in the file uses. */
export function unique(prefix: string): string {
  counter += 1;
  return `${prefix}_${counter}_${randomUUID().slice(0, 8)}`;
}

export interface SeededTenant {
  tenant: TenantView;
  apiKey: CreatedApiKey;
  /** Headers that authenticate as this tenant. */
  headers: Record<string, string>;
}

/** A tenant with one API key, made through the same services the command line calls. */
export async function seedTenant(db: Db): Promise<SeededTenant> {
  const alias = unique('tenant');
  const registration = await prepareTenantRegistration(
    { alias, email: `${alias}@example.test`, password: 'a long enough password' },
    testPasswordHashCost,
  );
  const tenant = await db.transaction().execute((trx) => addTenantWithAdmin(trx, registration));
  return withApiKey(db, tenant);
}

/**
 * A tenant and an API key on a store whose schema predates users (the tenant row alone), for
 * tests that start from an older schema.
 */
export async function seedTenantRow(db: Db): Promise<SeededTenant> {
  const alias = unique('tenant');
  const tenant = await insertNewTenant(db, { alias, email: `${alias}@example.test` });
  // The key's row with the columns of 0001 alone, as a store of then had it.
  const { key, prefix } = generateKey();
  const apiKey = { id: newId(), name: 'test key', prefix, key };
  await db
    .insertInto('api_keys')
    .values({
      tenant_id: tenant.id,
      id: apiKey.id,
      name: apiKey.name,
      prefix,
      key_hash: createHash('sha256').update(key).digest('hex'),
      created_at: new Date().toISOString(),
      last_used_at: null,
      revoked_at: null,
    })
    .execute();
  return { tenant, apiKey, headers: { 'x-system-api-key': key } };
}

async function withApiKey(db: Db, tenant: TenantView): Promise<SeededTenant> {
  const apiKey = await createApiKey(db, tenant.id, { name: 'test key' });
  return { tenant, apiKey, headers: { 'x-system-api-key': apiKey.key } };
}

/** Creates a template with a fresh code, in the caller's transaction or one of its own. */
export async function seedTemplate(db: Db | Trx, tenantId: string): Promise<string> {
  const code = unique('tpl');
  const create = (trx: Trx) => createTemplate(trx, tenantId, { code, name: `Template ${code}` });
  await (db.isTransaction ? create(db as Trx) : db.transaction().execute(create));
  return code;
}

/**
 * A template on a store whose schema predates products (the columns of 0001 alone), for tests
 * that start from an older schema; returns the code.
 */
export async function seedTemplateRow(db: Db, tenantId: string): Promise<string> {
  const code = unique('tpl');
  await db
    .insertInto('templates')
    .values({
      tenant_id: tenantId,
      id: newId(),
      code,
      name: `Template ${code}`,
      description: '',
      created_at: new Date().toISOString(),
    } as never)
    .execute();
  return code;
}

let tagCounter = 0;

/**
 * A published version (the columns of 0001 alone) on a store whose schema predates content
 * files, for tests that start from an older schema; returns its id.
 */
export async function publishRow(
  db: Db,
  tenantId: string,
  code: string,
  contentHtml: string,
): Promise<{ consent_version_id: string }> {
  const template = await db
    .selectFrom('templates')
    .select('id')
    .where('tenant_id', '=', tenantId)
    .where('code', '=', code)
    .executeTakeFirstOrThrow();
  const id = newId();
  const now = new Date().toISOString();
  await db
    .insertInto('template_versions')
    .values({
      tenant_id: tenantId,
      id,
      template_id: template.id,
      status: 'published',
      version: 1,
      tag: '1.0',
      content_html: contentHtml,
      content_sha256: createHash('sha256').update(contentHtml).digest('hex'),
      file_url: null,
      allow_reconsent: 1,
      created_at: now,
      updated_at: now,
      published_at: now,
      published_by: 'test',
    } as never)
    .execute();
  return { consent_version_id: id };
}

/**
 * Publishes a version (tag and content made up unless given) and returns V as the API shows it.
 * Written as a draft and published at once, without an audit entry: a test's audit log holds
 * only the acts it is about.
 */
export async function publish(
  db: Db,
  tenantId: string,
  code: string,
  fields: {
    tag?: string;
    content_html?: string;
    allow_reconsent?: boolean;
    file_url?: string;
  } = {},
  publicBaseUrl = 'https://consent.test',
): Promise<PublishedVersion> {
  tagCounter += 1;
  const input = {
    tag: fields.tag ?? `${tagCounter}.0`,
    content_html: fields.content_html ?? `<p>Consent text ${tagCounter}</p>`,
    ...(fields.allow_reconsent === undefined ? {} : { allow_reconsent: fields.allow_reconsent }),
    ...(fields.file_url === undefined ? {} : { file_url: fields.file_url }),
  };
  const row = await db.transaction().execute(async (trx) => {
    const template = await getTemplateByCode(trx, tenantId, code);
    const draft = await createDraftVersion(trx, template, input);
    return { ...(await publishDraft(trx, draft, template.code, 'test')), template_code: code };
  });
  return presentVersion(row, publicBaseUrl);
}

/**
 * A new template with a published version, as the catalogue hands it to a decision: for tests
 * that drive the writer of decisions without HTTP.
 */
export async function seedPublishedVersion(db: Db, tenantId: string): Promise<VersionWithCode> {
  const code = await seedTemplate(db, tenantId);
  const versionId = (await publish(db, tenantId, code)).consent_version_id;
  const version = await createCatalog(db, 'https://consent.test').publishedById(
    tenantId,
    versionId,
  );
  if (!version) throw new Error('the published version is not found');
  return version;
}
