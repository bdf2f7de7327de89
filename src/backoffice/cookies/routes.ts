import type { FastifyInstance } from 'fastify';
import type { Db } from '../../platform/db.js';
import type { Registry } from '../../record-kinds/index.js';
import type { SubjectVault } from '../../subjects/index.js';
import { configurationRoutes } from './configuration-routes.js';
import { cookieDecisionRoutes } from './decision-routes.js';
import { editorRoutes } from './editor-routes.js';
import { previewRoutes } from './preview-routes.js';
import { configurationStepRoutes } from './review-routes.js';
import { systemRoutes } from './system-routes.js';
import { visitorErasureRoutes } from './visitor-routes.js';

/**
 * The cookie pages (Platform → Cookies), one plugin per page or concern: systems, the
 * configurations' list and pages, a draft's editor, a configuration's banner previews, the steps of review and publication,
 * visitors' decisions, and a visitor's erasure.
 */
export async function cookiePageRoutes(
  app: FastifyInstance,
  deps: {
    db: Db;
    vault: SubjectVault;
    registry: Registry;
    publicBaseUrl: string;
    flushRefusedOrigins: () => Promise<void>;
  },
) {
  const { db, vault, registry, publicBaseUrl, flushRefusedOrigins } = deps;
  await app.register(systemRoutes, { db, publicBaseUrl, flushRefusedOrigins });
  await app.register(configurationRoutes, { db, publicBaseUrl });
  await app.register(editorRoutes, { db });
  await app.register(previewRoutes, { db });
  await app.register(configurationStepRoutes, { db, publicBaseUrl });
  await app.register(cookieDecisionRoutes, { db, vault });
  await app.register(visitorErasureRoutes, { db, vault, registry });
}
