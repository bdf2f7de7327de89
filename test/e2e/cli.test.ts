import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  type CliResult,
  expectJsonObject,
  killAllChildren,
  makeTempStore,
  runCli,
  showResult,
  type TempStore,
  tableNames,
  withStore,
} from '../helpers/process.js';
import { acceptAuditEntries, auditRefusal, refuseAuditEntries } from '../helpers/store-faults.js';
import { postgresStore, stores } from '../helpers/stores.js';
import { testPasswordHashCost } from '../helpers/time.js';

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const isoUtc = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
const publicBaseUrl = 'http://127.0.0.1:3999';

/** A failed management command: a readable message on stderr, nothing on stdout, non-zero. */
function expectFailure(result: CliResult, mentions: RegExp): void {
  expect(result.code, showResult(result)).not.toBe(0);
  expect(result.code, showResult(result)).not.toBeNull();
  expect(result.stdout, showResult(result)).toBe('');
  expect(result.stderr.trim(), showResult(result)).not.toBe('');
  expect(result.stderr, showResult(result)).toMatch(mentions);
  // Readable: a sentence, not a stack trace.
  expect(result.stderr, showResult(result)).not.toMatch(/^\s+at .+:\d+:\d+\)?$/m);
}

function sortedKeys(object: Record<string, unknown>): string[] {
  return Object.keys(object).sort();
}

// The two stores' suites run at the same time (each its own store and processes); the commands of
// one store run one after another, each on what the previous left.
describe.concurrent.each(stores)('on $name', (testStore) => {
  describe.sequential('management commands of bin/consent-service', () => {
    let store: TempStore;
    let env: Record<string, string>;
    const cli = (...args: string[]) => runCli(args, env, { cwd: store.dir });

    beforeAll(async () => {
      store = await makeTempStore(testStore);
      env = {
        DATABASE_URL: store.databaseUrl,
        PUBLIC_BASE_URL: publicBaseUrl,
        LOG_LEVEL: 'warn',
        RATE_LIMIT_PER_MINUTE: '0',
        PASSWORD_HASH_COST: String(testPasswordHashCost),
      };
    });
    afterEach(async () => {
      await killAllChildren(store);
    });
    afterAll(async () => {
      await store?.remove();
    });

    it('migrate on a fresh store creates the schema, prints one JSON object and exits 0', async () => {
      const result = await cli('migrate');
      const printed = expectJsonObject(result);
      expect(sortedKeys(printed)).toEqual(['applied']);
      expect(Array.isArray(printed.applied)).toBe(true);
      expect(await tableNames(store)).toEqual(
        expect.arrayContaining(['tenants', 'api_keys', 'templates', 'decisions']),
      );
    });

    it('migrate on a fresh store reports the migrations it applied; run again, reports none', async () => {
      const fresh = await makeTempStore(testStore);
      try {
        const first = expectJsonObject(
          await runCli(
            ['migrate'],
            { ...env, DATABASE_URL: fresh.databaseUrl },
            { cwd: fresh.dir },
          ),
        );
        const applied = first.applied as unknown[];
        // `migrate` is the one command that does not migrate before it runs: it must find the
        // store empty and report what it applied.
        expect(
          applied.length,
          'migrate on an empty store printed no applied migration',
        ).toBeGreaterThan(0);
        for (const name of applied) expect(typeof name).toBe('string');
        const second = expectJsonObject(
          await runCli(
            ['migrate'],
            { ...env, DATABASE_URL: fresh.databaseUrl },
            { cwd: fresh.dir },
          ),
        );
        expect(second).toEqual({ applied: [] });
      } finally {
        await fresh.remove();
      }
    });

    it('tenant create prints {id, alias, email} and exits 0', async () => {
      const tenant = expectJsonObject(
        await cli(
          'tenant',
          'create',
          '--alias',
          'acme',
          '--email',
          'privacy@acme.example',
          '--password',
          'a long enough password',
        ),
      );
      expect(sortedKeys(tenant)).toEqual(['alias', 'email', 'id']);
      expect(tenant.id).toEqual(expect.any(String));
      expect(tenant.id).not.toBe('');
      expect(tenant.alias).toBe('acme');
      expect(tenant.email).toBe('privacy@acme.example');
      expect(JSON.stringify(tenant)).not.toContain('a long enough password');
    });

    it('when the alias is already taken, tenant create fails on stderr with nothing on stdout', async () => {
      const result = await cli(
        'tenant',
        'create',
        '--alias',
        'acme',
        '--email',
        'other@acme.example',
        '--password',
        'a long enough password',
      );
      expectFailure(result, /alias/i);
    });

    it('when an option is missing, tenant create fails naming it', async () => {
      const result = await cli(
        'tenant',
        'create',
        '--alias',
        'nopassword',
        '--email',
        'n@p.example',
      );
      expectFailure(result, /--password or --name/);
    });

    it('tenant create with --name instead of --password invites the first admin: it prints the invitation link, once', async () => {
      const tenant = expectJsonObject(
        await cli(
          'tenant',
          'create',
          '--alias',
          'globex',
          '--email',
          'privacy@globex.example',
          '--name',
          'Grace Globex',
        ),
      );
      expect(sortedKeys(tenant)).toEqual(['alias', 'email', 'id', 'invitation_url']);
      expect(tenant.alias).toBe('globex');
      expect(tenant.invitation_url).toMatch(
        new RegExp(`^${publicBaseUrl}/backoffice/password\\?token=[A-Za-z0-9_-]{43}$`),
      );
      const admin = await withStore(store, (db) =>
        db
          .selectFrom('users')
          .select(['name', 'status', 'password_hash'])
          .where('email', '=', 'privacy@globex.example')
          .execute(),
      );
      expect(admin).toEqual([{ name: 'Grace Globex', status: 'invited', password_hash: null }]);
      const both = await cli(
        'tenant',
        'create',
        '--alias',
        'both',
        '--email',
        'b@both.example',
        '--name',
        'Bo',
        '--password',
        'a long enough password',
      );
      expectFailure(both, /--password or --name, not both/);
    });

    it('template create prints {id, code, name} and exits 0', async () => {
      const template = expectJsonObject(
        await cli(
          'template',
          'create',
          '--tenant',
          'acme',
          '--code',
          'privacy_policy',
          '--name',
          'Privacy',
        ),
      );
      expect(sortedKeys(template)).toEqual(['code', 'id', 'name']);
      expect(template.id).toEqual(expect.any(String));
      expect(template.id).not.toBe('');
      expect(template.code).toBe('privacy_policy');
      expect(template.name).toBe('Privacy');
    });

    it('when the template code already exists in the tenant, template create fails', async () => {
      const result = await cli(
        'template',
        'create',
        '--tenant',
        'acme',
        '--code',
        'privacy_policy',
        '--name',
        'Again',
      );
      expectFailure(result, /privacy_policy|already exists/i);
    });

    it('when the tenant is unknown, template create fails naming it', async () => {
      const result = await cli(
        'template',
        'create',
        '--tenant',
        'nobody',
        '--code',
        'terms',
        '--name',
        'Terms',
      );
      expectFailure(result, /nobody/);
    });

    it('product create prints {id, code, name}; template create --product puts the template in it, and an unknown product fails naming the option', async () => {
      const product = expectJsonObject(
        await cli('product', 'create', '--tenant', 'acme', '--code', 'cards', '--name', 'Cards'),
      );
      expect(sortedKeys(product)).toEqual(['code', 'id', 'name']);
      expect(product).toMatchObject({ code: 'cards', name: 'Cards' });
      const template = expectJsonObject(
        await cli(
          'template',
          'create',
          '--tenant',
          'acme',
          '--code',
          'card_terms',
          '--name',
          'Card terms',
          '--product',
          'cards',
        ),
      );
      expect(sortedKeys(template)).toEqual(['code', 'id', 'name']);
      const stored = await withStore(store, (db) =>
        db
          .selectFrom('templates')
          .innerJoin('products', 'products.id', 'templates.product_id')
          .select(['templates.code', 'products.code as product'])
          .where('templates.code', 'in', ['privacy_policy', 'card_terms'])
          .orderBy('templates.code')
          .execute(),
      );
      expect(stored).toEqual([
        { code: 'card_terms', product: 'cards' },
        { code: 'privacy_policy', product: 'general' },
      ]);
      expectFailure(
        await cli(
          'template',
          'create',
          '--tenant',
          'acme',
          '--code',
          'other',
          '--name',
          'Other',
          '--product',
          'nope',
        ),
        /product/,
      );
      expectFailure(
        await cli('product', 'create', '--tenant', 'acme', '--code', 'cards', '--name', 'Again'),
        /already exists/,
      );
    });

    it('template create --validity-months sets the period and prints it; template update changes it and none clears it, each audited by the command line', async () => {
      const created = expectJsonObject(
        await cli(
          'template',
          'create',
          '--tenant',
          'acme',
          '--code',
          'lapsing_terms',
          '--name',
          'Lapsing terms',
          '--validity-months',
          '12',
        ),
      );
      expect(sortedKeys(created)).toEqual(['code', 'id', 'name', 'validity_months']);
      expect(created).toMatchObject({ code: 'lapsing_terms', validity_months: 12 });
      const updated = expectJsonObject(
        await cli(
          'template',
          'update',
          '--tenant',
          'acme',
          '--code',
          'lapsing_terms',
          '--validity-months',
          '6',
        ),
      );
      expect(updated).toEqual({
        id: created.id,
        code: 'lapsing_terms',
        name: 'Lapsing terms',
        validity_months: 6,
      });
      const cleared = expectJsonObject(
        await cli(
          'template',
          'update',
          '--tenant',
          'acme',
          '--code',
          'lapsing_terms',
          '--validity-months',
          'none',
        ),
      );
      expect(cleared.validity_months).toBeNull();
      const audit = await withStore(store, (db) =>
        db
          .selectFrom('audit_log')
          .select(['actor', 'details'])
          .where('action', '=', 'template.changed')
          .where('target', '=', 'lapsing_terms')
          .orderBy('created_at')
          .execute(),
      );
      expect(audit.map((e) => e.actor)).toEqual(['command line', 'command line', 'command line']);
      expect(audit.map((e) => JSON.parse(String(e.details)).validity_months)).toEqual([
        { from: null, to: 12 },
        { from: 12, to: 6 },
        { from: 6, to: null },
      ]);
    });

    it('template update --data-categories marks the sensitive data it covers, none clears them, an unknown one fails naming the option', async () => {
      const update = (value: string) =>
        cli(
          'template',
          'update',
          '--tenant',
          'acme',
          '--code',
          'lapsing_terms',
          '--data-categories',
          value,
        );
      const marked = expectJsonObject(await update('biometric, health'));
      // Listed in the order of PDPA section 26, whatever order they were given in.
      expect(marked).toMatchObject({
        code: 'lapsing_terms',
        data_categories: ['health', 'biometric'],
      });
      expectFailure(await update('health,shoe-size'), /data_categories.*shoe-size/s);
      const cleared = expectJsonObject(await update('none'));
      expect(cleared.data_categories).toEqual([]);
      const stored = await withStore(store, (db) =>
        db
          .selectFrom('templates')
          .select('data_categories')
          .where('code', '=', 'lapsing_terms')
          .executeTakeFirstOrThrow(),
      );
      expect(stored).toEqual({ data_categories: null });
    });

    it('template update --representation sets who may decide for whom, none clears it, an unknown basis fails naming the option', async () => {
      const update = (value: string) =>
        cli(
          'template',
          'update',
          '--tenant',
          'acme',
          '--code',
          'lapsing_terms',
          '--representation',
          value,
        );
      const set = expectJsonObject(
        await update('10-19=subject-with-representative, under-10=representative'),
      );
      // Written back in the order of the bases, whatever order they were given in.
      expect(set).toMatchObject({
        code: 'lapsing_terms',
        representation: 'under-10=representative,10-19=subject-with-representative',
      });
      expectFailure(await update('under-12=subject'), /representation.*under-12/s);
      const read = () =>
        withStore(store, (db) =>
          db
            .selectFrom('templates')
            .select('representation')
            .where('code', '=', 'lapsing_terms')
            .executeTakeFirstOrThrow(),
        );
      expect(JSON.parse((await read()).representation ?? 'null')).toEqual({
        'under-10': 'representative',
        '10-19': 'subject-with-representative',
      });
      expect(expectJsonObject(await update('none')).representation).toBe('none');
      expect(await read()).toEqual({ representation: null });
    });

    it('a validity period that is no whole number of months from 1 to 120 fails with the message, and changes nothing', async () => {
      for (const bad of ['0', '121', '1.5']) {
        expectFailure(
          await cli(
            'template',
            'update',
            '--tenant',
            'acme',
            '--code',
            'lapsing_terms',
            '--validity-months',
            bad,
          ),
          /The validity period must be a whole number of months from 1 to 120, or empty for none\./,
        );
      }
      const stored = await withStore(store, (db) =>
        db
          .selectFrom('templates')
          .select('validity_months')
          .where('code', '=', 'lapsing_terms')
          .executeTakeFirstOrThrow(),
      );
      expect(stored).toEqual({ validity_months: null });
    });

    it('template create with a bad validity period makes no template; template update without one fails naming the option', async () => {
      expectFailure(
        await cli(
          'template',
          'create',
          '--tenant',
          'acme',
          '--code',
          'never_made',
          '--name',
          'Never made',
          '--validity-months',
          'twelve',
        ),
        /whole number of months/,
      );
      const made = await withStore(store, (db) =>
        db.selectFrom('templates').select('code').where('code', '=', 'never_made').execute(),
      );
      expect(made).toEqual([]);
      expectFailure(
        await cli('template', 'update', '--tenant', 'acme', '--code', 'lapsing_terms'),
        /--validity-months/,
      );
    });

    it('partner create prints the partner, its country in upper case', async () => {
      const made = expectJsonObject(
        await cli(
          'partner',
          'create',
          '--tenant',
          'acme',
          '--code',
          'acme-insure',
          '--name',
          'Acme Insurance',
          '--purpose',
          'Insurance offers',
          '--country',
          'th',
          '--policy-url',
          'https://acme.example/privacy',
        ),
      );
      expect(sortedKeys(made)).toEqual([
        'code',
        'country',
        'created_at',
        'id',
        'name',
        'policy_url',
        'purpose',
        'updated_at',
      ]);
      expect(made).toMatchObject({
        code: 'acme-insure',
        name: 'Acme Insurance',
        purpose: 'Insurance offers',
        country: 'TH',
        policy_url: 'https://acme.example/privacy',
      });
      expect(made.id).toMatch(uuid);
      expect(made.created_at).toMatch(isoUtc);
      const minimal = expectJsonObject(
        await cli('partner', 'create', '--tenant', 'acme', '--code', 'beta', '--name', 'Beta'),
      );
      expect(minimal).toMatchObject({ purpose: '', country: null, policy_url: null });
    });

    it('partner create fails naming the field on bad input, and saying so on a code taken', async () => {
      expectFailure(
        await cli('partner', 'create', '--tenant', 'acme', '--code', 'Bad_Code', '--name', 'X'),
        /code/,
      );
      expectFailure(
        await cli(
          'partner',
          'create',
          '--tenant',
          'acme',
          '--code',
          'gamma',
          '--name',
          'Gamma',
          '--policy-url',
          'http://gamma.example',
        ),
        /policy_url: must be an https URL/,
      );
      expectFailure(
        await cli('partner', 'create', '--tenant', 'acme', '--code', 'beta', '--name', 'Again'),
        /A partner with code "beta" already exists/,
      );
    });

    it("partner list lists the tenant's partners by code, each creation audited as the command line", async () => {
      const listed = expectJsonObject(await cli('partner', 'list', '--tenant', 'acme'));
      expect(
        (listed.partners as Array<Record<string, unknown>>).map((p) => [
          p.code,
          p.name,
          p.versions_listing,
        ]),
      ).toEqual([
        ['acme-insure', 'Acme Insurance', 0],
        ['beta', 'Beta', 0],
      ]);
      const audited = await withStore(store, (db) =>
        db
          .selectFrom('audit_log')
          .select(['action', 'target', 'actor'])
          .where('action', 'like', 'partner.%')
          .orderBy('created_at')
          .orderBy('id')
          .execute(),
      );
      expect(audited).toEqual([
        { action: 'partner.created', target: 'acme-insure', actor: 'command line' },
        { action: 'partner.created', target: 'beta', actor: 'command line' },
      ]);
    });

    it('when the audit entry cannot be written, product create fails and leaves no product behind', async () => {
      await withStore(store, refuseAuditEntries);
      let result: CliResult;
      try {
        result = await cli(
          'product',
          'create',
          '--tenant',
          'acme',
          '--code',
          'loans',
          '--name',
          'Loans',
        );
      } finally {
        await withStore(store, acceptAuditEntries);
      }
      expectFailure(result, new RegExp(auditRefusal));
      const left = await withStore(store, (db) =>
        db.selectFrom('products').select('code').where('code', '=', 'loans').execute(),
      );
      expect(left).toEqual([]);
    });

    it('version publish --content prints V with sanitized content (no <script>) and the service file_url', async () => {
      const version = expectJsonObject(
        await cli(
          'version',
          'publish',
          '--tenant',
          'acme',
          '--template',
          'privacy_policy',
          '--tag',
          '1.0',
          '--content',
          '<h1>Privacy</h1><p onclick="steal()">We keep <strong>little</strong>.</p><script>alert("x")</script>',
        ),
      );
      expect(sortedKeys(version)).toEqual([
        'allow_reconsent',
        'consent_version_id',
        'content_html',
        'file_url',
        'published_at',
        'tag',
        'template_code',
        'version',
      ]);
      expect(version.consent_version_id).toMatch(uuid);
      expect(version.template_code).toBe('privacy_policy');
      expect(version.version).toBe(1);
      expect(version.tag).toBe('1.0');
      expect(version.allow_reconsent).toBe(true);
      expect(version.published_at).toMatch(isoUtc);
      expect(version.file_url).toBe(
        `${publicBaseUrl}/api/content/${String(version.consent_version_id)}.html`,
      );
      const html = String(version.content_html);
      expect(html).not.toMatch(/<script/i);
      expect(html).not.toContain('alert');
      expect(html).not.toContain('onclick');
      expect(html).toContain('<h1>Privacy</h1>');
      expect(html).toContain('<strong>little</strong>');
    });

    it('version publish --content-file --file-url --allow-reconsent false prints V numbered 2 with those values', async () => {
      const file = join(store.dir, 'terms.html');
      writeFileSync(
        file,
        '<h2>Version two</h2>\n<p>Read <a href="https://example.com/more">more</a>.</p><iframe src="https://evil.example"></iframe>\n',
      );
      const version = expectJsonObject(
        await cli(
          'version',
          'publish',
          '--tenant',
          'acme',
          '--template',
          'privacy_policy',
          '--tag',
          '2.0.1',
          '--content-file',
          file,
          '--file-url',
          'https://cdn.example.com/privacy-2.html',
          '--allow-reconsent',
          'false',
        ),
      );
      expect(version.consent_version_id).toMatch(uuid);
      expect(version.version).toBe(2);
      expect(version.tag).toBe('2.0.1');
      expect(version.allow_reconsent).toBe(false);
      expect(version.file_url).toBe('https://cdn.example.com/privacy-2.html');
      expect(version.published_at).toMatch(isoUtc);
      const html = String(version.content_html);
      expect(html).toContain('<h2>Version two</h2>');
      expect(html).toContain('href="https://example.com/more"');
      expect(html).not.toMatch(/<iframe/i);
    });

    it('when the tag is not a dotted number, version publish fails and publishes nothing', async () => {
      const result = await cli(
        'version',
        'publish',
        '--tenant',
        'acme',
        '--template',
        'privacy_policy',
        '--tag',
        'v3',
        '--content',
        '<p>x</p>',
      );
      expectFailure(result, /tag/i);
    });

    it('when the tag is already used in the template, version publish fails', async () => {
      const result = await cli(
        'version',
        'publish',
        '--tenant',
        'acme',
        '--template',
        'privacy_policy',
        '--tag',
        '1.0',
        '--content',
        '<p>x</p>',
      );
      expectFailure(result, /1\.0|tag/i);
    });

    it('when neither --content nor --content-file is given, version publish fails naming --content', async () => {
      const result = await cli(
        'version',
        'publish',
        '--tenant',
        'acme',
        '--template',
        'privacy_policy',
        '--tag',
        '3.0',
      );
      expectFailure(result, /--content/);
    });

    it('when --allow-reconsent is neither true nor false, version publish fails', async () => {
      const result = await cli(
        'version',
        'publish',
        '--tenant',
        'acme',
        '--template',
        'privacy_policy',
        '--tag',
        '3.0',
        '--content',
        '<p>x</p>',
        '--allow-reconsent',
        'maybe',
      );
      expectFailure(result, /allow-reconsent/);
    });

    it('when the template is unknown, version publish fails', async () => {
      const result = await cli(
        'version',
        'publish',
        '--tenant',
        'acme',
        '--template',
        'no_such_template',
        '--tag',
        '1.0',
        '--content',
        '<p>x</p>',
      );
      expectFailure(result, /template/i);
    });

    it('when the content has nothing visible once sanitized, version publish exits 1 saying why on stderr', async () => {
      const result = await cli(
        'version',
        'publish',
        '--tenant',
        'acme',
        '--template',
        'privacy_policy',
        '--tag',
        '3.0',
        '--content',
        '<script>track()</script><style>p{color:red}</style><form><input name="q"></form>',
      );
      expect(result.code, showResult(result)).toBe(1);
      expect(result.stdout).toBe('');
      expect(result.stderr).toBe(
        'Error 1001: The content has no visible text once unsafe parts are removed (scripts, styles and forms are not kept; an image counts by its alt text).\n',
      );
    });

    it('after the failed publishes, the next publish is still numbered 3', async () => {
      const version = expectJsonObject(
        await cli(
          'version',
          'publish',
          '--tenant',
          'acme',
          '--template',
          'privacy_policy',
          '--tag',
          '3.0',
          '--content',
          '<p>Three</p>',
        ),
      );
      expect(version.version).toBe(3);
    });

    it('each version publish is in the audit log as published by the command line, outside review', async () => {
      const entries = await withStore(store, (db) =>
        db
          .selectFrom('audit_log')
          .select(['actor_kind', 'actor', 'target', 'details'])
          .where('action', '=', 'version.published')
          .orderBy('created_at')
          .orderBy('id')
          .execute(),
      );
      expect(entries.map((e) => [e.actor_kind, e.actor, e.target])).toEqual([
        ['operator', 'command line', 'privacy_policy 1.0'],
        ['operator', 'command line', 'privacy_policy 2.0.1'],
        ['operator', 'command line', 'privacy_policy 3.0'],
      ]);
      for (const entry of entries) {
        expect(JSON.parse(entry.details ?? '{}')).toMatchObject({ review: 'bypassed' });
      }
    });

    it('version publish --partners lists them in V, by code; an unknown code fails naming partners and publishes nothing', async () => {
      expectJsonObject(
        await cli(
          'template',
          'create',
          '--tenant',
          'acme',
          '--code',
          'sharing',
          '--name',
          'Sharing',
        ),
      );
      const publishSharing = (tag: string, partners: string) =>
        cli(
          'version',
          'publish',
          '--tenant',
          'acme',
          '--template',
          'sharing',
          '--tag',
          tag,
          '--content',
          '<p>We share with our partners.</p>',
          '--partners',
          partners,
        );
      expectFailure(
        await publishSharing('1.0', 'beta,nobody'),
        /partners: names no partner of this tenant: "nobody"/,
      );
      const v = expectJsonObject(await publishSharing('1.0', 'beta,acme-insure'));
      expect(v.version).toBe(1);
      expect(v.partners).toEqual([
        { code: 'acme-insure', name: 'Acme Insurance' },
        { code: 'beta', name: 'Beta' },
      ]);
      const listed = expectJsonObject(await cli('partner', 'list', '--tenant', 'acme'));
      expect(
        (listed.partners as Array<Record<string, unknown>>).map((p) => [
          p.code,
          p.versions_listing,
        ]),
      ).toEqual([
        ['acme-insure', 1],
        ['beta', 1],
      ]);
    });

    it.each([
      ['LF', '4.0', '\n'],
      ['CRLF', '4.1', '\r\n'],
    ])(
      'a content file with %s line endings is published with LF, its SHA-256 that of the LF text',
      async (_what, tag, eol) => {
        // The LF text and its SHA-256 (hex), computed apart from the service.
        const lf = '<h1>Terms</h1>\n<p>We keep your e-mail address\nto run your account.</p>';
        const lfSha256 = 'e669acf0a78ccd70eca88201367262bc0c2e3fecaf77fd5767f2874bb265c82b';
        const file = join(store.dir, `terms-${tag}.html`);
        writeFileSync(file, lf.replaceAll('\n', eol));
        const version = expectJsonObject(
          await cli(
            'version',
            'publish',
            '--tenant',
            'acme',
            '--template',
            'privacy_policy',
            '--tag',
            tag,
            '--content-file',
            file,
          ),
        );
        expect(version.content_html).toBe(lf);
        const row = await withStore(store, (db) =>
          db
            .selectFrom('template_versions')
            .select('content_sha256')
            .where('id', '=', String(version.consent_version_id))
            .executeTakeFirstOrThrow(),
        );
        expect(row.content_sha256).toBe(lfSha256);
      },
    );

    it('version publish --effective-at schedules the version: printed with that time in UTC, audited, and no other publish until it is live; a time with no zone fails naming the option', async () => {
      expectJsonObject(
        await cli('template', 'create', '--tenant', 'acme', '--code', 'terms', '--name', 'Terms'),
      );
      const publish = (tag: string, ...more: string[]) =>
        cli(
          'version',
          'publish',
          '--tenant',
          'acme',
          '--template',
          'terms',
          '--tag',
          tag,
          '--content',
          `<p>Terms ${tag}</p>`,
          ...more,
        );
      expectFailure(await publish('1.0', '--effective-at', '2099-01-01T07:00'), /effective-at/);
      const scheduled = expectJsonObject(
        await publish('1.0', '--effective-at', '2099-01-01T07:00:00+07:00'),
      );
      expect(scheduled).toMatchObject({ version: 1, published_at: '2099-01-01T00:00:00.000Z' });
      const second = await publish('2.0');
      expect(second.code, showResult(second)).toBe(1);
      expect(second.stderr).toBe(
        'Error 1005: Version 1 (tag 1.0) is scheduled to go live at 2099-01-01T00:00:00.000Z: cancel it, or wait until it is live, before publishing another.\n',
      );
      const audit = await withStore(store, (db) =>
        db
          .selectFrom('audit_log')
          .select('details')
          .where('action', '=', 'version.published')
          .where('target', '=', 'terms 1.0')
          .executeTakeFirstOrThrow(),
      );
      expect(JSON.parse(audit.details ?? '{}')).toMatchObject({
        effective_at: '2099-01-01T00:00:00.000Z',
        review: 'bypassed',
      });
    });

    it('template create --locale sets the default locale; version publish --locale and --variant publish one release in several locales, each its own id; a bad tag or --variant fails', async () => {
      const template = expectJsonObject(
        await cli(
          'template',
          'create',
          '--tenant',
          'acme',
          '--code',
          'bank_terms',
          '--name',
          'Bank',
          '--locale',
          'th',
        ),
      );
      expect(template.code).toBe('bank_terms');
      const th = join(store.dir, 'terms-th.html');
      const enGb = join(store.dir, 'terms-en-gb.html');
      writeFileSync(th, '<p>ข้อกำหนด</p>');
      writeFileSync(enGb, '<p>Terms</p>');
      const publish = (...more: string[]) =>
        cli('version', 'publish', '--tenant', 'acme', '--template', 'bank_terms', ...more);
      expectFailure(
        await publish('--tag', '1.0', '--content-file', th, '--locale', 'not a tag'),
        /locale/,
      );
      expectFailure(
        await publish('--tag', '1.0', '--content-file', th, '--variant', 'en-GB'),
        /--variant/,
      );
      const version = expectJsonObject(
        await publish('--tag', '1.0', '--content-file', th, '--variant', `en-gb=${enGb}`),
      );
      expect(version).toMatchObject({ version: 1, tag: '1.0', content_html: '<p>ข้อกำหนด</p>' });
      const rows = await withStore(store, (db) =>
        db
          .selectFrom('template_versions')
          .select(['id', 'locale', 'release_id', 'content_html', 'status', 'version'])
          .where('release_id', '=', String(version.consent_version_id))
          .orderBy('locale')
          .execute(),
      );
      expect(rows.map((r) => [r.locale, r.content_html, r.status, r.version])).toEqual([
        ['en-GB', '<p>Terms</p>', 'published', 1],
        ['th', '<p>ข้อกำหนด</p>', 'published', 1],
      ]);
      expect(new Set(rows.map((r) => r.id)).size).toBe(2);
    });

    it('apikey create prints {id, name, prefix, key} where the key starts with the prefix', async () => {
      const key = expectJsonObject(
        await cli('apikey', 'create', '--tenant', 'acme', '--name', 'web'),
      );
      expect(sortedKeys(key)).toEqual(['id', 'key', 'name', 'prefix']);
      expect(key.id).toEqual(expect.any(String));
      expect(key.name).toBe('web');
      expect(key.prefix).toEqual(expect.any(String));
      expect(String(key.prefix).length).toBeGreaterThan(0);
      expect(key.key).toEqual(expect.any(String));
      expect(String(key.key).startsWith(String(key.prefix))).toBe(true);
      expect(String(key.key).length).toBeGreaterThanOrEqual(String(key.prefix).length + 20);

      const revoked = expectJsonObject(
        await cli('apikey', 'revoke', '--tenant', 'acme', '--id', String(key.id)),
      );
      expect(sortedKeys(revoked)).toEqual(['id', 'revoked_at']);
      expect(revoked.id).toBe(key.id);
      expect(revoked.revoked_at).toMatch(isoUtc);
    });

    it("when an active key of the tenant has the name, apikey create fails saying so; a revoked key's name is free", async () => {
      expectJsonObject(await cli('apikey', 'create', '--tenant', 'acme', '--name', 'crm'));
      const again = await cli('apikey', 'create', '--tenant', 'acme', '--name', 'crm');
      expectFailure(again, /An active key named "crm" already exists/);
      expect(again.code).toBe(1);
      // The key named "web" above was revoked: its name may be given again.
      expectJsonObject(await cli('apikey', 'create', '--tenant', 'acme', '--name', 'web'));
    });

    it('when the key id is unknown, apikey revoke fails', async () => {
      const result = await cli(
        'apikey',
        'revoke',
        '--tenant',
        'acme',
        '--id',
        '00000000-0000-4000-8000-000000000000',
      );
      expectFailure(result, /not found|key/i);
    });

    it('when the tenant is unknown, apikey create fails naming it', async () => {
      const result = await cli('apikey', 'create', '--tenant', 'ghost', '--name', 'web');
      expectFailure(result, /ghost/);
    });

    it('tenant list, product list, template list and apikey list print what the commands above made; no key secret', async () => {
      const tenants = expectJsonObject(await cli('tenant', 'list')).tenants as Array<
        Record<string, unknown>
      >;
      expect(tenants.map((t) => t.alias)).toContain('acme');
      expect(sortedKeys(tenants[0] ?? {})).toEqual(['alias', 'created_at', 'email', 'id']);

      const products = expectJsonObject(await cli('product', 'list', '--tenant', 'acme'))
        .products as Array<Record<string, unknown>>;
      expect(products.map((p) => p.code)).toEqual(expect.arrayContaining(['general']));
      expect(sortedKeys(products[0] ?? {})).toEqual([
        'archived_at',
        'code',
        'created_at',
        'description',
        'name',
        'template_count',
      ]);

      const published = expectJsonObject(
        await cli(
          'version',
          'publish',
          '--tenant',
          'acme',
          '--template',
          'privacy_policy',
          '--tag',
          '9.0',
          '--content',
          '<p>Listed</p>',
        ),
      );
      const templates = expectJsonObject(await cli('template', 'list', '--tenant', 'acme'))
        .templates as Array<Record<string, unknown>>;
      expect(templates.find((t) => t.code === 'privacy_policy')).toMatchObject({
        code: 'privacy_policy',
        latest_version: published.version,
        latest_tag: '9.0',
      });

      const made = expectJsonObject(
        await cli('apikey', 'create', '--tenant', 'acme', '--name', 'listed'),
      );
      const keys = expectJsonObject(await cli('apikey', 'list', '--tenant', 'acme')).keys as Array<
        Record<string, unknown>
      >;
      const listed = keys.find((k) => k.id === made.id);
      expect(listed).toMatchObject({ name: 'listed', prefix: made.prefix, revoked_at: null });
      expect(JSON.stringify(keys)).not.toContain(String(made.key));
    });

    it('when the command is unknown, fails naming it', async () => {
      const result = await cli('tenant', 'explode');
      expectFailure(result, /tenant explode/);
    });

    it('when an option is unknown, fails naming it', async () => {
      const result = await cli(
        'apikey',
        'create',
        '--tenant',
        'acme',
        '--name',
        'web',
        '--colour',
        'red',
      );
      expectFailure(result, /colour/);
    });
  });
});

describe('the data key of a PostgreSQL store, from another folder', () => {
  it('a command run where the key file is not refuses before writing one, and works again where it is; a missing --tenant is said before either', async () => {
    const store = await makeTempStore(postgresStore);
    const other = mkdtempSync(join(tmpdir(), 'consent-elsewhere-'));
    try {
      const env = {
        DATABASE_URL: store.databaseUrl,
        PASSWORD_HASH_COST: String(testPasswordHashCost),
      };
      // The first command meets a new store: it makes the key in data/ of its folder.
      expectJsonObject(await runCli(['migrate'], env, { cwd: store.dir }));
      expect(existsSync(join(store.dir, 'data', 'data-encryption.key'))).toBe(true);

      const elsewhere = await runCli(['partner', 'list', '--tenant', 'acme'], env, { cwd: other });
      expect(elsewhere.code, showResult(elsewhere)).toBe(1);
      expect(elsewhere.stdout).toBe('');
      expect(elsewhere.stderr).toContain(
        `This store is sealed with a data encryption key, and there is none at ${join(other, 'data', 'data-encryption.key')}`,
      );
      expect(existsSync(join(other, 'data'))).toBe(false);
      // A missing --tenant is said first, before the store or its key is looked at (exit 2).
      const noTenant = await runCli(['partner', 'list'], env, { cwd: other });
      expect(noTenant.code, showResult(noTenant)).toBe(2);
      expect(noTenant.stderr).toMatch(/^Missing --tenant\.\n/);
      const unreachable = await runCli(
        ['partner', 'list'],
        { DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' },
        { cwd: other },
      );
      expect(unreachable.code, showResult(unreachable)).toBe(2);
      expect(unreachable.stderr).toMatch(/^Missing --tenant\.\n/);

      // Where the key is, the same store answers as before.
      expect(expectJsonObject(await runCli(['migrate'], env, { cwd: store.dir }))).toEqual({
        applied: [],
      });
    } finally {
      rmSync(other, { recursive: true, force: true });
      await store.remove();
    }
  });
});
