import { recordAudit } from '../audit-trail/index.js';
import type { Trx } from '../platform/db.js';
import { AppError } from '../platform/errors.js';
import {
  type CookieConfiguration,
  createConfiguration,
  type Editor,
  getConfiguration,
  publishConfiguration,
  reviewConfiguration,
} from './configurations.js';
import { deleteConfigurationRows } from './drafts-repository.js';

/**
 * A new draft of the same system with this configuration's name and content (audited
 * `cookie_configuration.created`, then `cookie_configuration.copied` naming the configuration it
 * came from): the way to change a banner once it has left draft.
 */
export async function copyConfiguration(
  trx: Trx,
  tenantId: string,
  id: string,
  by: Editor,
): Promise<CookieConfiguration> {
  const source = await getConfiguration(trx, tenantId, id);
  const copy = await createConfiguration(
    trx,
    tenantId,
    { system: source.system, name: source.name, content: source.content },
    by,
  );
  const { userId: _userId, ...actor } = by;
  await recordAudit(trx, {
    ...actor,
    action: 'cookie_configuration.copied',
    target: copy.id,
    details: { from: source.id, from_version: source.version },
  });
  return copy;
}

/**
 * Deletes a draft configuration with its timeline (audited `cookie_configuration.deleted`, with
 * its name, system, version and content hash). Its version number is not given again. `409 1005`
 * once it left draft: what was submitted stays on record.
 */
export async function deleteConfiguration(
  trx: Trx,
  tenantId: string,
  id: string,
  by: Editor,
): Promise<CookieConfiguration> {
  const configuration = await getConfiguration(trx, tenantId, id);
  if (configuration.status !== 'draft') {
    throw new AppError('conflict', { message: 'Only a draft configuration can be deleted.' });
  }
  await deleteConfigurationRows(trx, tenantId, id);
  const { userId: _userId, ...actor } = by;
  await recordAudit(trx, {
    ...actor,
    action: 'cookie_configuration.deleted',
    target: id,
    details: {
      name: configuration.name,
      system: configuration.system,
      version: configuration.version,
      content_sha256: configuration.content_sha256,
    },
  });
  return configuration;
}

/**
 * Approves a configuration under four eyes (`reviewConfiguration`) and, when asked, publishes it
 * in the same transaction, as approving a template's version publishes it: an approver takes a
 * banner live without the right to edit one. Audited as both steps are.
 */
export async function approveConfiguration(
  trx: Trx,
  tenantId: string,
  id: string,
  by: Editor,
  options: { note?: string; publish: boolean },
): Promise<CookieConfiguration> {
  const approved = await reviewConfiguration(trx, tenantId, id, 'approve', by, options.note);
  return options.publish ? publishConfiguration(trx, tenantId, id, by) : approved;
}
