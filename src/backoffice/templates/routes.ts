import type { FastifyInstance } from 'fastify';
import type { Db } from '../../platform/db.js';
import { draftRoutes } from './draft-routes.js';
import { contentFileRoutes } from './file-routes.js';
import { templateListRoutes } from './list-routes.js';
import { localeRoutes } from './locale-routes.js';
import { templateRoutes } from './template-routes.js';
import { versionRoutes } from './version-routes.js';

/**
 * The templates' pages, one plugin per page or concern: the list and a new template, a
 * template's page, writing drafts, a version's page, its other locales, its content files.
 * Review and approval are `review-routes.ts`.
 */
export async function templatePageRoutes(app: FastifyInstance, { db }: { db: Db }) {
  await app.register(templateListRoutes, { db });
  await app.register(templateRoutes, { db });
  await app.register(draftRoutes, { db });
  await app.register(versionRoutes, { db });
  await app.register(localeRoutes, { db });
  await app.register(contentFileRoutes, { db });
}
