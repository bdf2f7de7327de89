import type { Db } from '../platform/db.js';
import { getTenantByAlias } from '../tenants/index.js';
import {
  createEndpoint,
  deleteEndpoint,
  disableEndpoint,
  enableEndpoint,
  getEndpoint,
  listDeliveries,
  listEndpoints,
  replayFrom,
  rotateSecret,
} from '../webhooks/index.js';
import { type Commands, commandLine, type Options, required, UsageError } from './command.js';

/** The tenant named by `--tenant`, as the operator on the command line acts for it. */
async function as(db: Db, options: Options) {
  const tenant = await getTenantByAlias(db, required(options, 'tenant'));
  return { ...commandLine, tenantId: tenant.id };
}

function whole(options: Options, name: string, least: number): number {
  const text = required(options, name);
  const value = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(value) || value < least) {
    throw new UsageError(`--${name} must be a whole number, ${least} or more.`);
  }
  return value;
}

/**
 * The `webhook …` commands (a group of the command line's table): a tenant's endpoints, as the
 * back-office manages them.
 */
export const webhookCommands: Commands = {
  'webhook create': {
    options: ['tenant', 'url', 'events', 'description'],
    run: async (db, o, config, vault, registry) => {
      const actor = await as(db, o);
      const { endpoint, secret } = await createEndpoint(
        db,
        vault,
        config.webhooks,
        registry,
        actor,
        {
          url: required(o, 'url'),
          events: required(o, 'events').split(','),
          description: o.description,
        },
      );
      return { ...endpoint, secret };
    },
  },
  'webhook list': {
    options: ['tenant'],
    run: async (db, o) => ({ endpoints: await listEndpoints(db, (await as(db, o)).tenantId) }),
  },
  'webhook disable': {
    options: ['tenant', 'id'],
    run: async (db, o) => {
      const by = await as(db, o);
      return db.transaction().execute((trx) => disableEndpoint(trx, by, required(o, 'id')));
    },
  },
  'webhook enable': {
    options: ['tenant', 'id'],
    run: async (db, o) => {
      const by = await as(db, o);
      return db.transaction().execute((trx) => enableEndpoint(trx, by, required(o, 'id')));
    },
  },
  'webhook delete': {
    options: ['tenant', 'id'],
    run: async (db, o) => {
      const by = await as(db, o);
      return db.transaction().execute((trx) => deleteEndpoint(trx, by, required(o, 'id')));
    },
  },
  'webhook rotate-secret': {
    options: ['tenant', 'id'],
    run: async (db, o, config, vault) => {
      const by = await as(db, o);
      return db
        .transaction()
        .execute((trx) => rotateSecret(trx, vault, by, required(o, 'id'), config.webhooks));
    },
  },
  'webhook replay': {
    options: ['tenant', 'id', 'from'],
    run: async (db, o) => {
      const by = await as(db, o);
      const from = whole(o, 'from', 1);
      return db.transaction().execute((trx) => replayFrom(trx, by, required(o, 'id'), from));
    },
  },
  'webhook deliveries': {
    options: ['tenant', 'id', 'limit'],
    run: async (db, o) => {
      const { tenantId } = await as(db, o);
      const id = required(o, 'id');
      await getEndpoint(db, tenantId, id);
      const limit = o.limit === undefined ? 50 : Math.min(whole(o, 'limit', 1), 500);
      return listDeliveries(db, tenantId, id, limit);
    },
  },
};
