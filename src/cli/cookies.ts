import { readFileSync } from 'node:fs';
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
  'cookie decisions': {
    options: ['tenant', 'system'],
    lines: true,
    run: async (db, o, _config, vault) => {
      const { tenantId } = await as(db, o);
      return cookieDecisions(db, vault, tenantId, { scope: required(o, 'system') });
    },
  },
};

function readContent(file: string): unknown {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new UsageError(`--content-file: ${(error as Error).message}`);
  }
}
