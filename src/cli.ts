import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import {
  addTenantWithAdmin,
  passwordLinkUrl,
  prepareTenantRegistration,
  registerTenant,
} from './accounts/index.js';
import { createApiKey, revokeApiKey } from './api-keys/index.js';
import { channelCommands } from './cli/channels.js';
import { type Command, commandLine, type Options, required, UsageError } from './cli/command.js';
import { cookieCommands } from './cli/cookies.js';
import { createDemo } from './cli/demo.js';
import { partnerCommands } from './cli/partners.js';
import { verifyPackFile, verifyReceiptFile } from './cli/verify-receipt.js';
import { webhookCommands } from './cli/webhooks.js';
import { serveOnWorkers } from './cluster.js';
import { type AuditReport, auditLog, saveAuditRun } from './decision-log/index.js';
import { eraseCustomer } from './erasure/index.js';
import { partnersOfRelease } from './partners/index.js';
import { type Config, ConfigError, loadConfig } from './platform/config.js';
import { loadDataKey } from './platform/data-key.js';
import { createDb, type Db } from './platform/db.js';
import { toAppError } from './platform/error-handler.js';
import { migrateToLatest } from './platform/migrate.js';
import { createProduct } from './products/index.js';
import { createVault, type SubjectVault } from './subjects/index.js';
import {
  changeValidityAs,
  createTemplate,
  effectiveInstant,
  getTemplateByCode,
  presentVersion,
  publishOutsideReview,
} from './templates/index.js';
import { getTenantByAlias } from './tenants/index.js';
import { serviceVersion } from './version.js';

const usage = `Usage: consent-service <command> [options]

  serve                                   run the HTTP server (applies pending migrations first)
  migrate                                 bring the store's schema up to date
  demo [--alias demo]                     create a demo tenant, template, version and API key
  tenant create --alias A --email E (--password P | --name N)
                                          with --name, the first admin is invited: the
                                          command prints the link to set their password
  product create --tenant A --code C --name N [--description D]
  partner create --tenant A --code C --name N [--purpose P] [--country CC] [--policy-url URL]
                                          a partner customer data may be shared with
  partner list --tenant A
  channel create --tenant A --code C --name N
                                          a contact channel of the tenant's own, beside
                                          email, sms, push, phone and post
  channel list --tenant A
  template create --tenant A --code C --name N [--description D] [--product P] [--locale L]
                  [--validity-months M]   a consent given lapses M calendar months later
                                          (1 to 120); none when absent
  template update --tenant A --code C --validity-months (M | none)
                                          change it (none: consent never lapses)
  version publish --tenant A --template C --tag T (--content-file F | --content HTML)
                  [--file-url U] [--allow-reconsent true|false]
                  [--effective-at T]      T: ISO 8601 with a zone; live from then
                                          (scheduled), at once when absent or past
                  [--locale L]            the content's locale (BCP 47); the template's default
                  [--variant L=FILE ...]  another locale's content of the same release
                  [--partners P1,P2]      the codes of the partners its text allows
  apikey create --tenant A --name N
  apikey revoke --tenant A --id ID
  customer erase --tenant A --customer C  erase the customer's personal data for good (their
                                          key is destroyed); their decisions stay provable
  audit --tenant A                        recompute the tenant's decision log from the store and
                                          report every changed, removed or reordered record,
                                          leaf, node or checkpoint; exits 1 when it finds any
  webhook create --tenant A --url U --events E1,E2 [--description D]
                                          register an endpoint; its secret is shown once
  webhook list --tenant A
  webhook (enable|disable|delete|rotate-secret) --tenant A --id ID
  webhook replay --tenant A --id ID --from POSITION
                                          send every event from POSITION on again, in order
  webhook deliveries --tenant A --id ID [--limit N]
  cookie system create --tenant A --name N --origin URL [--origin URL ...]
                                          a website; prints its scope and script tag
  cookie system list --tenant A
  cookie create --tenant A --system SCOPE --name N [--categories C1,C2]
                [--effective-date YYYY-MM-DD] [--content-file F]
                                          a draft banner configuration (default texts in
                                          English and Thai, or F's JSON content)
  cookie publish --tenant A --system SCOPE
                                          publish the system's newest configuration outside
                                          review; prints {"script_tag": …}
  cookie unpublish --tenant A --system SCOPE
  cookie visitor erase --tenant A --visitor V
                                          erase a website visitor's personal data for good
                                          (V: the id their browser kept); their choices stay
  cookie decisions --tenant A --system SCOPE
                                          the visitors' choices, one JSON object per line
  verify-receipt FILE --key VKEY [--origin O]
                  check a decision receipt offline (VKEY: the verifier key, or a file
                  holding it); exits 0 when it verifies, 1 when not
  verify-receipt --pack FILE.zip --key VKEY
                  check a customer's evidence pack offline: the signed manifest, every
                  file's SHA-256, every receipt under the pack's checkpoint, every text
                  shown; exits 1 naming each file that fails

Management commands print one JSON object on stdout. The store is DATABASE_URL's
(default: an SQLite file under ./data/); pending migrations are applied first.`;

const commands: Record<
  string,
  {
    options: string[];
    migratesItself?: boolean;
    run: Command;
    /**
     * What makes its result a failure, said on stderr with exit 1 (the JSON result still goes to
     * stdout, for a program to read); undefined when it succeeded.
     */
    failure?: (result: unknown) => string | undefined;
    /** Its result is a sequence, printed as JSON lines (one object per line). */
    lines?: boolean;
  }
> = {
  'tenant create': {
    options: ['alias', 'email', 'password', 'name'],
    run: async (db, o, config) => {
      const alias = required(o, 'alias');
      const email = required(o, 'email');
      if (o.password !== undefined && o.name !== undefined) {
        throw new UsageError('Give --password or --name, not both.');
      }
      if (o.password === undefined && o.name === undefined) {
        throw new UsageError('Missing --password or --name (to invite the first admin).');
      }
      if (o.name !== undefined) {
        // The first admin invited, as the operator's page does: they set their own password
        // with the link, which is printed here once (the command line sends no e-mail).
        const input = { alias, email, name: o.name };
        const { tenant, token } = await db
          .transaction()
          .execute((trx) => registerTenant(trx, input, { ...commandLine, tenantId: null }));
        return { ...tenant, invitation_url: passwordLinkUrl(config.publicBaseUrl, token) };
      }
      const registration = await prepareTenantRegistration(
        { alias, email, password: o.password },
        config.passwordHashCost,
      );
      return db.transaction().execute((trx) => addTenantWithAdmin(trx, registration));
    },
  },
  'product create': {
    options: ['tenant', 'code', 'name', 'description'],
    run: (db, o) =>
      db.transaction().execute(async (trx) => {
        const tenant = await getTenantByAlias(trx, required(o, 'tenant'));
        const actor = { ...commandLine, tenantId: tenant.id };
        const product = await createProduct(trx, actor, tenant.id, {
          code: required(o, 'code'),
          name: required(o, 'name'),
          ...(o.description === undefined ? {} : { description: o.description }),
        });
        return { id: product.id, code: product.code, name: product.name };
      }),
  },
  'template create': {
    options: ['tenant', 'code', 'name', 'description', 'product', 'locale', 'validity-months'],
    run: (db, o) =>
      db.transaction().execute(async (trx) => {
        const tenant = await getTenantByAlias(trx, required(o, 'tenant'));
        const created = await createTemplate(trx, tenant.id, {
          code: required(o, 'code'),
          name: required(o, 'name'),
          ...(o.description === undefined ? {} : { description: o.description }),
          ...(o.product === undefined ? {} : { product: o.product }),
          ...(o.locale === undefined ? {} : { locale: o.locale }),
        });
        if (o['validity-months'] === undefined) return created;
        // Set, and audited, as a change of the template made a moment ago.
        const template = await changeValidityAs(
          trx,
          { tenantId: tenant.id, ...commandLine },
          await getTemplateByCode(trx, tenant.id, created.code),
          validityOption(o['validity-months']),
        );
        return { ...created, validity_months: template.validity_months };
      }),
  },
  'template update': {
    options: ['tenant', 'code', 'validity-months'],
    run: (db, o) =>
      db.transaction().execute(async (trx) => {
        const tenant = await getTenantByAlias(trx, required(o, 'tenant'));
        const template = await changeValidityAs(
          trx,
          { tenantId: tenant.id, ...commandLine },
          await getTemplateByCode(trx, tenant.id, required(o, 'code')),
          validityOption(required(o, 'validity-months')),
        );
        const { id, code, name, validity_months } = template;
        return { id, code, name, validity_months };
      }),
  },
  'version publish': {
    options: [
      'tenant',
      'template',
      'tag',
      'content-file',
      'content',
      'file-url',
      'allow-reconsent',
      'effective-at',
      'locale',
      'variant',
      'partners',
    ],
    run: async (db, o, config) => {
      const tenant = await getTenantByAlias(db, required(o, 'tenant'));
      const published = await db.transaction().execute((trx) =>
        publishOutsideReview(
          trx,
          { tenantId: tenant.id, ...commandLine },
          tenant.id,
          required(o, 'template'),
          {
            tag: required(o, 'tag'),
            content_html: content(o),
            ...(o['file-url'] === undefined ? {} : { file_url: o['file-url'] }),
            ...(o['allow-reconsent'] === undefined
              ? {}
              : { allow_reconsent: booleanOption(o['allow-reconsent'], 'allow-reconsent') }),
            ...(o.locale === undefined ? {} : { locale: o.locale }),
          },
          {
            ...(o['effective-at'] === undefined
              ? {}
              : { effectiveAt: effectiveInstant(o['effective-at'], 'effective-at') }),
            variants: variants(o),
            ...(o.partners === undefined ? {} : { partners: listOption(o.partners) }),
          },
        ),
      );
      const v = presentVersion(published, config.publicBaseUrl);
      // As `latest` answers it: the partners only when the version lists some.
      const partners = await partnersOfRelease(db, tenant.id, published.release_id);
      return partners.length > 0 ? { ...v, partners } : v;
    },
  },
  'apikey create': {
    options: ['tenant', 'name'],
    run: (db, o) =>
      db.transaction().execute(async (trx) => {
        const tenant = await getTenantByAlias(trx, required(o, 'tenant'));
        return createApiKey(trx, tenant.id, { name: required(o, 'name') });
      }),
  },
  'apikey revoke': {
    options: ['tenant', 'id'],
    run: (db, o) =>
      db.transaction().execute(async (trx) => {
        const tenant = await getTenantByAlias(trx, required(o, 'tenant'));
        return revokeApiKey(trx, tenant.id, required(o, 'id'));
      }),
  },
  'customer erase': {
    options: ['tenant', 'customer'],
    run: async (db, o, _config, vault) => {
      const tenant = await getTenantByAlias(db, required(o, 'tenant'));
      return eraseCustomer(db, vault, tenant.id, required(o, 'customer'), commandLine);
    },
  },
  audit: {
    options: ['tenant'],
    run: async (db, o, _config, vault) => {
      const tenant = await getTenantByAlias(db, required(o, 'tenant'));
      const report = await auditLog(db, vault, tenant.id);
      await saveAuditRun(db, report, 'command line');
      return report;
    },
    failure: (result) => {
      const report = result as AuditReport;
      if (report.ok) return undefined;
      const kinds = [...new Set(report.findings.map((f) => f.kind))].join(', ');
      return `The audit found ${report.findings.length} problem(s) in the log: ${kinds}.`;
    },
  },
  migrate: {
    options: [],
    migratesItself: true,
    run: async (db, _o, _config, vault) => ({ applied: await migrateToLatest(db, vault.dataKey) }),
  },
  ...webhookCommands,
  ...cookieCommands,
  ...partnerCommands,
  ...channelCommands,
};

export async function main(argv: string[]): Promise<number> {
  const [first, second, ...rest] = argv;
  if (!first || first === 'help' || first === '--help' || first === '-h') {
    process.stdout.write(`${usage}\n`);
    return first ? 0 : 2;
  }
  if (first === '--version') {
    process.stdout.write(`${serviceVersion}\n`);
    return 0;
  }
  try {
    if (first === 'verify-receipt' && [second, ...rest].some((a) => a?.startsWith('--pack'))) {
      const values = parse(
        [second, ...rest].filter((a) => a !== undefined),
        ['pack', 'key'],
      );
      const verdict = verifyPackFile(required(values, 'pack'), required(values, 'key'));
      process.stdout.write(`${JSON.stringify(verdict)}\n`);
      if (verdict.valid) return 0;
      const lines = verdict.failures.map(({ file, reason }) => `  ${file}: ${reason}\n`);
      process.stderr.write(`The pack does not verify:\n${lines.join('')}`);
      return 1;
    }
    if (first === 'verify-receipt') {
      const { values, positionals } = parseWithFile([second, ...rest], ['key', 'origin']);
      const verdict = verifyReceiptFile(
        positionals[0] as string,
        required(values, 'key'),
        values.origin,
      );
      process.stdout.write(`${JSON.stringify(verdict)}\n`);
      if (verdict.valid) return 0;
      process.stderr.write(`The receipt does not verify: ${verdict.reason}\n`);
      return 1;
    }
    const config = loadConfig();
    if (first === 'serve') {
      parse(
        [second, ...rest].filter((a) => a !== undefined),
        [],
      );
      await serveOnWorkers(config);
      return 0;
    }
    if (first === 'demo') {
      const options = parse(
        [second, ...rest].filter((a) => a !== undefined),
        ['alias'],
      );
      return await withDb(config, async (db) => {
        process.stdout.write(await createDemo(db, config, options.alias ?? 'demo'));
      });
    }
    const single = first === 'migrate' || first === 'audit';
    // Three words (`cookie system create`) when such a command exists, else two.
    const three = `${first} ${second ?? ''} ${rest[0] ?? ''}`;
    const threeWords = !single && commands[three] !== undefined;
    const name = single ? first : threeWords ? three : `${first} ${second ?? ''}`;
    const command = commands[name];
    if (!command) throw new UsageError(`Unknown command "${name.trim()}".`);
    const options = parse(
      single ? [second, ...rest].filter((a) => a !== undefined) : threeWords ? rest.slice(1) : rest,
      command.options,
    );
    let failure: string | undefined;
    await withDb(
      config,
      async (db, vault) => {
        const result = await command.run(db, options, config, vault);
        if (command.lines) {
          for await (const line of result as AsyncIterable<unknown>) {
            process.stdout.write(`${JSON.stringify(line)}\n`);
          }
          return;
        }
        process.stdout.write(`${JSON.stringify(result)}\n`);
        failure = command.failure?.(result);
      },
      !command.migratesItself,
    );
    if (failure === undefined) return 0;
    process.stderr.write(`${failure}\n`);
    return 1;
  } catch (error) {
    process.stderr.write(`${describe(error)}\n`);
    if (error instanceof UsageError) process.stderr.write(`\n${usage}\n`);
    return error instanceof UsageError ? 2 : 1;
  }
}

/** A comma-separated option's values, blanks left out. */
function listOption(value: string): string[] {
  return value
    .split(',')
    .map((v) => v.trim())
    .filter((v) => v !== '');
}

async function withDb(
  config: Config,
  work: (db: Db, vault: SubjectVault) => Promise<void>,
  migrateFirst = true,
): Promise<number> {
  const dataKey = loadDataKey(config, (details, message) =>
    process.stderr.write(`${message}: ${details.file}\n`),
  );
  const db = createDb(config);
  try {
    if (migrateFirst) await migrateToLatest(db, dataKey);
    await work(db, createVault(dataKey));
    return 0;
  } finally {
    await db.destroy();
  }
}

/** Options that may be given more than once: each is kept, in order. */
const repeatable = new Set(['variant', 'origin']);

function parse(args: string[], names: string[]): Options {
  try {
    const { values } = parseArgs({
      args,
      options: Object.fromEntries(
        names.map((n) => [n, { type: 'string' as const, multiple: repeatable.has(n) }]),
      ),
      strict: true,
      allowPositionals: false,
    });
    return values as Options;
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

/** Options and exactly one file name. */
function parseWithFile(
  args: (string | undefined)[],
  names: string[],
): { values: Options; positionals: string[] } {
  try {
    const { values, positionals } = parseArgs({
      args: args.filter((a) => a !== undefined),
      options: Object.fromEntries(names.map((n) => [n, { type: 'string' as const }])),
      strict: true,
      allowPositionals: true,
    });
    if (positionals.length !== 1) throw new Error('Give exactly one file.');
    return { values: values as Options, positionals };
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

/** `--validity-months`: `none` clears it; anything else is the service's to check. */
function validityOption(value: string): string | null {
  return value === 'none' ? null : value;
}

function booleanOption(value: string, name: string): boolean {
  if (value === 'true') return true;
  if (value === 'false') return false;
  throw new UsageError(`--${name} must be true or false.`);
}

function content(options: Options): string {
  const file = options['content-file'];
  if (file !== undefined && options.content !== undefined) {
    throw new UsageError('Give either --content-file or --content, not both.');
  }
  if (file !== undefined) return readContentFile(file);
  return required(options, 'content');
}

function readContentFile(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    throw new UsageError(`Cannot read ${file}: ${(error as Error).message}`);
  }
}

/** `--variant LOCALE=FILE`, each another locale's content of the release. */
function variants(options: Options): Array<{ locale: string; content_html: string }> {
  const given = (options as unknown as { variant?: string[] }).variant ?? [];
  return given.map((value) => {
    const at = value.indexOf('=');
    if (at < 1) throw new UsageError('--variant must be LOCALE=FILE, such as th=terms-th.html.');
    const file = value.slice(at + 1);
    return { locale: value.slice(0, at), content_html: readContentFile(file) };
  });
}

function describe(error: unknown): string {
  if (error instanceof UsageError || error instanceof ConfigError) return error.message;
  const appError = toAppError(error);
  // An operator at the command line is better served by the store's own words than by 1000.
  if (appError.code === '1000') return `Error: ${(error as Error).message ?? String(error)}`;
  const details = (appError.details ?? []).map((d) => `  ${d.field}: ${d.issue}`);
  return [`Error ${appError.code}: ${appError.message}`, ...details].join('\n');
}
