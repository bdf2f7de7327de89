import type { FastifyInstance } from 'fastify';
import type { ScanRunner } from '../../cookie-scanner/index.js';
import type { Db } from '../../platform/db.js';
import type { ReadOn } from '../../platform/replicas.js';
import type { Registry } from '../../record-kinds/index.js';
import type { SubjectVault } from '../../subjects/index.js';
import { analyticsRoutes } from './analytics-routes.js';
import { configurationRoutes } from './configuration-routes.js';
import { cookieDecisionRoutes } from './decision-routes.js';
import { editorRoutes } from './editor-routes.js';
import { overrideRoutes } from './override-routes.js';
import { previewRoutes } from './preview-routes.js';
import { configurationStepRoutes } from './review-routes.js';
import { scanRoutes } from './scan-routes.js';
import { systemRoutes } from './system-routes.js';
import { visitorErasureRoutes } from './visitor-routes.js';

/**
 * The cookie pages (Platform → Cookies), one plugin per page or concern: systems, the
 * configurations' list and pages, a draft's editor, a configuration's banner previews, the steps of review and publication,
 * visitors' decisions, a visitor's erasure, and a system's scans.
 */
export async function cookiePageRoutes(
  app: FastifyInstance,
  deps: {
    db: Db;
    /** Where visitors' decisions are listed and downloaded from (a caught-up replica or `db`). */
    readOn: ReadOn;
    vault: SubjectVault;
    registry: Registry;
    publicBaseUrl: string;
    flushRefusedOrigins: () => Promise<void>;
    scans: ScanRunner;
  },
) {
  const { db, readOn, vault, registry, publicBaseUrl, flushRefusedOrigins, scans } = deps;
  await app.register(systemRoutes, { db, publicBaseUrl, flushRefusedOrigins });
  await app.register(scanRoutes, { db, runner: scans });
  await app.register(analyticsRoutes, { db });
  await app.register(overrideRoutes, { db });
  await app.register(configurationRoutes, { db, publicBaseUrl });
  await app.register(editorRoutes, { db });
  await app.register(previewRoutes, { db });
  await app.register(configurationStepRoutes, { db, publicBaseUrl });
  await app.register(cookieDecisionRoutes, { db, readOn, vault, registry });
  await app.register(visitorErasureRoutes, { db, vault, registry });
}
