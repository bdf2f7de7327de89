import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { currentCookieDatabase, refreshCookieDatabase } from '../cookie-database/index.js';
import {
  listOverrides,
  removeOverride,
  runScan,
  type ScanResult,
  scanHistory,
  scanPageUrl,
  setOverride,
} from '../cookie-scanner/index.js';
import {
  cookieDecisions,
  createConfiguration,
  createSystem,
  type Editor,
  eraseCookieVisitor,
  getSystem,
  listSystems,
  publishLatestOutsideReview,
  scriptTag,
  unpublishConfiguration,
} from '../cookies/index.js';
import type { Db } from '../platform/db.js';
import { createMailer } from '../platform/mail.js';
import { getTenantByAlias } from '../tenants/index.js';
import {
  type Commands,
  commandLine,
  type Options,
  required,
  UsageError,
  values,
} from './command.js';

/** The tenant named by `--tenant`, and the operator on the command line acting for it. */
async function as(db: Db, options: Options): Promise<Editor & { tenantId: string }> {
  const tenant = await getTenantByAlias(db, required(options, 'tenant'));
  return { ...commandLine, userId: null, tenantId: tenant.id };
}

/** Every value of a repeatable option, each also split at commas; the option is required. */
function list(options: Options, name: string): string[] {
  if (options[name] === undefined) throw new UsageError(`Missing --${name}.`);
  return values(options, name);
}

/**
 * The `cookie …` commands (a group of the command line's table): a tenant's websites, their
 * banners and the choices recorded, for automation.
 */
export const cookieCommands: Commands = {
  'cookie system create': {
    options: ['tenant', 'name', 'origin'],
    run: async (db, o, config) => {
      const { userId: _userId, ...by } = await as(db, o);
      const { tenantId } = by;
      const system = await db
        .transaction()
        .execute((trx) =>
          createSystem(
            trx,
            tenantId,
            { name: required(o, 'name'), origins: list(o, 'origin') },
            by,
          ),
        );
      return { ...system, script_tag: scriptTag(config.publicBaseUrl, system.scope) };
    },
  },
  'cookie system list': {
    options: ['tenant'],
    run: async (db, o) => ({ systems: await listSystems(db, (await as(db, o)).tenantId) }),
  },
  'cookie create': {
    options: ['tenant', 'system', 'name', 'categories', 'effective-date', 'content-file'],
    run: async (db, o) => {
      const by = await as(db, o);
      const { tenantId } = by;
      const file = o['content-file'];
      const content = file === undefined ? undefined : readContent(file);
      return db.transaction().execute((trx) =>
        createConfiguration(
          trx,
          tenantId,
          {
            system: required(o, 'system'),
            name: required(o, 'name'),
            ...(o['effective-date'] === undefined ? {} : { effective_date: o['effective-date'] }),
            ...(content === undefined ? {} : { content }),
            categories: o.categories === undefined ? [] : list(o, 'categories'),
          },
          by,
        ),
      );
    },
  },
  'cookie publish': {
    options: ['tenant', 'system'],
    run: async (db, o, config) => {
      const by = await as(db, o);
      const { tenantId } = by;
      const scope = required(o, 'system');
      const published = await db
        .transaction()
        .execute((trx) => publishLatestOutsideReview(trx, tenantId, scope, by));
      return {
        script_tag: scriptTag(config.publicBaseUrl, scope),
        configuration_id: published.id,
        version: published.version,
      };
    },
  },
  'cookie unpublish': {
    options: ['tenant', 'system'],
    run: async (db, o) => {
      const by = await as(db, o);
      const { tenantId } = by;
      const system = await getSystem(db, tenantId, required(o, 'system'));
      if (!system.published_configuration_id) {
        throw new UsageError('This system has nothing published.');
      }
      const id = system.published_configuration_id;
      return db.transaction().execute((trx) => unpublishConfiguration(trx, tenantId, id, by));
    },
  },
  'cookie visitor erase': {
    options: ['tenant', 'visitor'],
    run: async (db, o, _config, vault, registry) => {
      const { tenantId } = await as(db, o);
      return eraseCookieVisitor(db, vault, registry, tenantId, required(o, 'visitor'), commandLine);
    },
  },
  'cookie scan': {
    options: ['tenant', 'system', 'url', 'pages'],
    flags: ['fail-on-violation', 'json'],
    repeatable: ['url'],
    failureCode: 3,
    failure: (result, o) => {
      const { violations } = result as ScanResult;
      if (o['fail-on-violation'] !== 'true' || violations.length === 0) return undefined;
      return `The scan found ${violations.length} violation${violations.length === 1 ? '' : 's'}.`;
    },
    run: async (db, o, config) => {
      const { tenantId } = await as(db, o);
      // A flagged scan is told as one from the back-office is: webhooks, and e-mail with SMTP_URL.
      const mailer = createMailer(config);
      try {
        return await runScan(
          db,
          config.cookieScans,
          config.publicBaseUrl,
          {
            tenantId,
            system: required(o, 'system'),
            urls: values(o, 'url'),
            pages: pagesOption(o),
            trigger: 'command-line',
            actor: commandLine.actor,
            auditedAs: commandLine,
          },
          {
            mailer,
            page: (scope, id) => scanPageUrl(config.publicBaseUrl, scope, id),
          },
        );
      } finally {
        mailer?.close();
      }
    },
  },
  'cookie scans': {
    options: ['tenant', 'system'],
    run: async (db, o) => {
      const { tenantId } = await as(db, o);
      return { scans: await scanHistory(db, tenantId, required(o, 'system')) };
    },
  },
  'cookie override set': {
    options: ['tenant', 'cookie', 'host', 'category', 'provider', 'purpose', 'retention'],
    run: async (db, o) => {
      const { tenantId } = await as(db, o);
      return setOverride(db, { ...commandLine, tenantId }, tenantId, {
        cookie: o.cookie,
        host: o.host,
        category: o.category,
        provider: o.provider,
        purpose: o.purpose,
        retention: o.retention,
      });
    },
  },
  'cookie override list': {
    options: ['tenant'],
    run: async (db, o) => {
      const { tenantId } = await as(db, o);
      return { overrides: await listOverrides(db, tenantId) };
    },
  },
  'cookie override remove': {
    options: ['tenant', 'cookie', 'host'],
    run: async (db, o) => {
      const { tenantId } = await as(db, o);
      return removeOverride(db, { ...commandLine, tenantId }, tenantId, {
        cookie: o.cookie,
        host: o.host,
      });
    },
  },
  'cookie database show': {
    options: [],
    run: async (db) => {
      const { database: _database, ...copy } = await currentCookieDatabase(db);
      return copy;
    },
  },
  'cookie database refresh': {
    options: ['file', 'source'],
    run: async (db, o) => {
      const file = required(o, 'file');
      return refreshCookieDatabase(db, readCsv(file), o.source ?? basename(file));
    },
  },
  'cookie decisions': {
    options: ['tenant', 'system'],
    lines: true,
    run: async (db, o, _config, vault) => {
      const { tenantId } = await as(db, o);
      return cookieDecisions(db, vault, tenantId, { scope: required(o, 'system') });
    },
  },
};

/** The number `--pages` says, or undefined; a usage error for anything but digits. */
function pagesOption(options: Options): number | undefined {
  const text = options.pages;
  if (text === undefined) return undefined;
  if (!/^\d{1,4}$/.test(text)) throw new UsageError('--pages is a whole number.');
  return Number(text);
}

function readCsv(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    throw new UsageError(`--file: ${(error as Error).message}`);
  }
}

function readContent(file: string): unknown {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new UsageError(`--content-file: ${(error as Error).message}`);
  }
}
