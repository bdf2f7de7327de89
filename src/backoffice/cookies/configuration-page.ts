import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  configurationFourEyes,
  configurationSteps,
  getConfiguration,
  listSystems,
  scriptTag,
  variantRates,
} from '../../cookies/index.js';
import type { Db } from '../../platform/db.js';
import { tenantOf } from '../web/context.js';
import { allowFramesOfSelf } from '../web/errors.js';
import { csrfToken } from '../web/layout.js';
import { configurationPage } from './configuration-views.js';
import { cookiesPage } from './section.js';

/** What a configuration's page shows besides the configuration itself. */
export interface ConfigurationPageOptions {
  id: string;
  publicBaseUrl: string;
  /** A step refused (400, 403 or 409): the comment typed, and why. */
  refusal?: { comment: string; error: string; status: number } | undefined;
}

/**
 * A configuration's page: its facts, script tag when published, content, the banner's preview,
 * timeline, and the forms of the steps the user may take now (four eyes hides those the service
 * would refuse).
 */
export async function showConfigurationPage(
  db: Db,
  request: FastifyRequest,
  reply: FastifyReply,
  o: ConfigurationPageOptions,
) {
  const user = tenantOf(request);
  const configuration = await getConfiguration(db, user.tenantId, o.id);
  const [steps, systems, fourEyes, rates] = await Promise.all([
    configurationSteps(db, user.tenantId, configuration.id),
    listSystems(db, user.tenantId),
    configurationFourEyes(db, user.tenantId, configuration, user.userId),
    (configuration.content.variants ?? []).length > 0
      ? variantRates(db, user.tenantId, configuration)
      : undefined,
  ]);
  const system = systems.find((s) => s.scope === configuration.system);
  const body = configurationPage({
    configuration,
    system: { scope: configuration.system, name: system?.name ?? configuration.system },
    steps: steps.map((s) => ({ step: s.step, actor: s.actor, note: s.note, at: s.created_at })),
    zone: user.timeZone,
    scriptTag: configuration.published
      ? scriptTag(o.publicBaseUrl, configuration.system)
      : undefined,
    actions: {
      edit: user.permissions.has('cookies:edit'),
      review: user.permissions.has('cookies:review'),
      approve: user.permissions.has('cookies:approve'),
      create: user.permissions.has('cookies:create'),
      delete: user.permissions.has('cookies:delete'),
      fourEyes,
    },
    csrfToken: csrfToken(reply),
    ...(rates ? { rates } : {}),
    ...(o.refusal ? { refusal: { comment: o.refusal.comment, error: o.refusal.error } } : {}),
  });
  // The page's preview section frames the banner's preview documents.
  allowFramesOfSelf(reply);
  return cookiesPage(request, reply, configuration.name, body, o.refusal?.status ?? 200);
}
