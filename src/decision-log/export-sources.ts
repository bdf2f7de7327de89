/**
 * What the receipt exports are made of beyond the receipt: the tenant, and what the customer or
 * visitor was shown. An erased subject's receipt has no export: it no longer says whose it is.
 */

import type { CookieReceipt } from '../cookies/index.js';
import { getConfiguration, getSystem } from '../cookies/index.js';
import type { Receipt } from '../decisions/index.js';
import type { Db } from '../platform/db.js';
import { AppError } from '../platform/errors.js';
import { nowIso } from '../platform/time.js';
import { dataCategoriesOf, getTemplateByCode, getVersion } from '../templates/index.js';
import { getTenantById } from '../tenants/index.js';
import type { CookieExportSource, OpenCookieReceipt } from './cookie-exports.js';
import type { Controller } from './export-parts.js';
import type { ExportSource, OpenReceipt } from './exports.js';

/** The tenant, the template and the version shown. */
export async function exportSource(
  db: Db,
  tenantId: string,
  receipt: Receipt,
  publicBaseUrl: string,
): Promise<ExportSource> {
  if (!isOpen(receipt)) throw erased('decision', 'customer');
  const { decision } = receipt;
  const [controller, template] = await Promise.all([
    controllerOf(db, tenantId),
    getTemplateByCode(db, tenantId, decision.template_code),
  ]);
  const version = await getVersion(db, template, decision.consent_version_id);
  if (version.published_at === null) throw new Error(`Version ${version.id} is not published`);
  return {
    receipt: receipt,
    controller,
    template: {
      name: template.name,
      description: template.description,
      data_categories: dataCategoriesOf(template),
    },
    version: {
      tag: version.tag,
      published_at: version.published_at,
      content_sha256: version.content_sha256,
      file_url: version.file_url,
      locale: version.locale,
    },
    publicBaseUrl,
    issuedAt: nowIso(),
  };
}

/** The tenant, the system and the configuration shown. */
export async function cookieExportSource(
  db: Db,
  tenantId: string,
  receipt: CookieReceipt,
  publicBaseUrl: string,
): Promise<CookieExportSource> {
  if (!isOpenCookie(receipt)) throw erased('cookie decision', 'visitor');
  const choice = receipt.cookie_decision;
  const [controller, configuration] = await Promise.all([
    controllerOf(db, tenantId),
    getConfiguration(db, tenantId, choice.configuration_id),
  ]);
  const system = await getSystem(db, tenantId, configuration.system);
  if (configuration.published_at === null) {
    throw new Error(`Configuration ${configuration.id} was never published`);
  }
  return {
    receipt,
    controller,
    system: { scope: system.scope, name: system.name },
    configuration: { published_at: configuration.published_at, content: configuration.content },
    publicBaseUrl,
    issuedAt: nowIso(),
  };
}

async function controllerOf(db: Db, tenantId: string): Promise<Controller> {
  const tenant = await getTenantById(db, tenantId);
  return { id: tenant.id, alias: tenant.alias };
}

function erased(record: string, subject: string): AppError {
  return new AppError('notFound', {
    message: `This ${record}'s ${subject} was erased: only its receipt remains, without whose it was.`,
  });
}

function isOpen(receipt: Receipt): receipt is OpenReceipt {
  return receipt.opening !== null && receipt.decision.customer_id !== null;
}

function isOpenCookie(receipt: CookieReceipt): receipt is OpenCookieReceipt {
  return receipt.opening !== null && receipt.cookie_decision.visitor_id !== null;
}
