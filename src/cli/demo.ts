import { randomBytes, randomUUID } from 'node:crypto';
import { createTenantWithAdmin } from '../accounts/index.js';
import { createApiKey } from '../api-keys/index.js';
import type { Config } from '../platform/config.js';
import type { Db } from '../platform/db.js';
import { createTemplate, presentVersion, publishOutsideReview } from '../templates/index.js';
import { commandLine } from './command.js';

const demoContent = `<h1>Privacy policy</h1>
<p>We keep your name and e-mail address to run your account, and nothing else.</p>
<ul><li>You can ask for a copy of your data at any time.</li>
<li>You can withdraw this consent whenever you like.</li></ul>
<p>Questions: <a href="mailto:privacy@example.com">privacy@example.com</a>.</p>`;

/**
 * Creates a demo tenant with a published template and an API key, and returns the text that
 * shows how to call the four endpoints with them. The version is published as `version publish`
 * does, outside review, and audited as such.
 */
export async function createDemo(db: Db, config: Config, alias: string): Promise<string> {
  const password = randomBytes(12).toString('base64url');
  const tenant = await createTenantWithAdmin(
    db,
    { alias, email: `${alias}@example.com`, password },
    config.passwordHashCost,
  );
  // The template, its published version and the key, together or not at all.
  const { version, apiKey } = await db.transaction().execute(async (trx) => {
    await createTemplate(trx, tenant.id, {
      code: 'privacy_policy',
      name: 'Privacy policy',
      description: 'Created by the demo command.',
    });
    const published = await publishOutsideReview(
      trx,
      { ...commandLine, tenantId: tenant.id },
      tenant.id,
      'privacy_policy',
      { tag: '1.0', content_html: demoContent },
    );
    return {
      version: presentVersion(published, config.publicBaseUrl),
      apiKey: await createApiKey(trx, tenant.id, { name: 'demo key' }),
    };
  });
  const base = config.publicBaseUrl;
  const customer = randomUUID();
  const key = `-H 'x-system-api-key: ${apiKey.key}'`;
  return [
    `Demo tenant "${alias}" created (sign-in ${tenant.email} / ${password}).`,
    `Template privacy_policy, version ${version.version} (tag ${version.tag}) published as ${version.consent_version_id}.`,
    `API key "${apiKey.name}" (shown only now): ${apiKey.key}`,
    '',
    'With the service running (npm start), try:',
    '',
    `curl -s ${base}/api/health`,
    `curl -s ${key} ${base}/api/v1/consent-templates/privacy_policy/latest`,
    `curl -s ${key} ${base}/api/v1/customers/${customer}/consents/templates/privacy_policy/pending`,
    `curl -s -X POST ${key} -H 'content-type: application/json' -d '{"consent_version_id":"${version.consent_version_id}","decision":"given"}' ${base}/api/v1/customers/${customer}/consents/decisions`,
    '',
  ].join('\n');
}
