import { randomBytes } from 'node:crypto';
import { type Actor, recordAudit } from '../audit-trail/index.js';
import type { Executor, Trx } from '../platform/db.js';
import { AppError } from '../platform/errors.js';
import { newId } from '../platform/ids.js';
import { nowIso } from '../platform/time.js';
import {
  findSystemById,
  findSystemByName,
  findSystemByScope,
  insertSystem,
  listSystemRows,
  updateSystemRow,
} from './repository.js';
import type { CookieSystemRow } from './table.js';

/** A system as the command line and the back-office show it. */
export interface CookieSystem {
  scope: string;
  name: string;
  origins: string[];
  published_configuration_id: string | null;
  created_at: string;
}

export function presentSystem(row: CookieSystemRow): CookieSystem {
  return {
    scope: row.scope,
    name: row.name,
    origins: JSON.parse(row.origins) as string[],
    published_configuration_id: row.published_configuration_id,
    created_at: row.created_at,
  };
}

const maxOrigins = 20;

/**
 * The origins in their one form: each an exact `http(s)://host[:port]` (what a browser sends in
 * `Origin`), without a path, a query or a trailing slash; `400 1001` naming the one that is not.
 */
export function checkOrigins(origins: readonly string[]): string[] {
  if (origins.length === 0 || origins.length > maxOrigins) {
    throw new AppError('invalidRequest', {
      details: [{ field: 'origins', issue: `must name 1 to ${maxOrigins} origins` }],
    });
  }
  const kept = origins.map((origin, i) => {
    let url: URL | undefined;
    try {
      url = new URL(origin);
    } catch {
      url = undefined;
    }
    if (!url || !/^https?:$/.test(url.protocol) || url.origin !== origin.replace(/\/$/, '')) {
      throw new AppError('invalidRequest', {
        details: [
          {
            field: `origins.${i}`,
            issue: 'must be an origin such as https://www.bank.example (scheme, host, port)',
          },
        ],
      });
    }
    return url.origin;
  });
  return [...new Set(kept)];
}

/** A new public scope: `cs_` and 20 hex digits, unguessable, safe in a URL and an attribute. */
function newScope(): string {
  return `cs_${randomBytes(10).toString('hex')}`;
}

/** A system's or a configuration's name, trimmed: 1 to 200 characters, `400 1001` otherwise. */
export function checkName(name: string): string {
  const trimmed = name.trim();
  if (trimmed.length === 0 || trimmed.length > 200) {
    throw new AppError('invalidRequest', {
      details: [{ field: 'name', issue: 'must be 1 to 200 characters' }],
    });
  }
  return trimmed;
}

/** Adds a website (audited `cookie_system.created`); its name is unique within the tenant. */
export async function createSystem(
  trx: Trx,
  tenantId: string,
  input: { name: string; origins: readonly string[] },
  by: Actor,
): Promise<CookieSystem> {
  const name = checkName(input.name);
  const origins = checkOrigins(input.origins);
  if (await findSystemByName(trx, tenantId, name)) {
    throw new AppError('conflict', { message: 'A system of that name exists.' });
  }
  const now = nowIso();
  const row: CookieSystemRow = {
    tenant_id: tenantId,
    id: newId(),
    scope: newScope(),
    name,
    origins: JSON.stringify(origins),
    published_configuration_id: null,
    configurations_made: 0,
    created_at: now,
    updated_at: now,
  };
  await insertSystem(trx, row);
  await recordAudit(trx, {
    ...by,
    action: 'cookie_system.created',
    target: row.scope,
    details: { name, origins },
  });
  return presentSystem(row);
}

/** Renames a system or changes its origins (audited `cookie_system.changed`). */
export async function changeSystem(
  trx: Trx,
  tenantId: string,
  scope: string,
  changes: { name?: string; origins?: readonly string[] },
  by: Actor,
): Promise<CookieSystem> {
  const system = await getSystem(trx, tenantId, scope);
  const name = changes.name === undefined ? system.name : checkName(changes.name);
  const origins = changes.origins === undefined ? undefined : checkOrigins(changes.origins);
  if (name !== system.name && (await findSystemByName(trx, tenantId, name))) {
    throw new AppError('conflict', { message: 'A system of that name exists.' });
  }
  const updated = {
    name,
    origins: origins ? JSON.stringify(origins) : system.origins,
    updated_at: nowIso(),
  };
  await updateSystemRow(trx, tenantId, system.id, updated);
  await recordAudit(trx, {
    ...by,
    action: 'cookie_system.changed',
    target: scope,
    details: { name, origins: JSON.parse(updated.origins) },
  });
  return presentSystem({ ...system, ...updated });
}

/** A tenant's system by its scope; `404 1004` otherwise. */
export async function getSystem(
  db: Executor,
  tenantId: string,
  scope: string,
): Promise<CookieSystemRow> {
  const system = await findSystemByScope(db, tenantId, scope);
  if (!system) throw new AppError('notFound', { message: 'No such system.' });
  return system;
}

/** The tenant's system of this id (not its scope), if it has one. */
export function systemById(
  db: Executor,
  tenantId: string,
  id: string,
): Promise<CookieSystemRow | undefined> {
  return findSystemById(db, tenantId, id);
}

export async function listSystems(db: Executor, tenantId: string): Promise<CookieSystem[]> {
  return (await listSystemRows(db, tenantId)).map(presentSystem);
}

/**
 * Consent Mode's defaults as the banner sets them, pushed as gtag.js reads them (an `arguments`
 * object) without defining a global `gtag` the site may define its own way.
 */
const consentDefaults =
  "window.dataLayer=window.dataLayer||[];(function(){dataLayer.push(arguments)})('consent','default',{ad_storage:'denied',ad_user_data:'denied',ad_personalization:'denied',analytics_storage:'denied',functionality_storage:'denied',personalization_storage:'denied',security_storage:'granted',wait_for_update:500});";

/**
 * The tag a site pastes as the first scripts of its `<head>`: the denied defaults inline, so they
 * come before any other tag whatever the service does, then the banner `async`, so a slow or
 * hung service never holds up the page's rendering (held tags wait for consent in any case).
 */
export function scriptTag(publicBaseUrl: string, scope: string): string {
  return `<script>${consentDefaults}</script>\n<script async src="${publicBaseUrl}/cookies/v1/${scope}/banner.js" data-scope="${scope}"></script>`;
}
