import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { previewScript } from '../../cookies/index.js';
import type { Db } from '../../platform/db.js';
import { AppError } from '../../platform/errors.js';
import { tenantOf } from '../web/context.js';
import { queryOf } from '../web/forms.js';
import { type PreviewLayer, previewDocument, previewLayers } from './preview-views.js';

/**
 * The policy of a preview's document, in place of the pages': its own inline scripts and nothing
 * else (no request, so a choice could not be sent even if the banner tried); framed by this
 * site's pages only; and sandboxed with scripts alone even when opened on its own, so that it
 * never runs as this site, reads none of its cookies and sets none.
 */
function previewPolicy(nonce: string): string {
  return [
    "default-src 'none'",
    `script-src 'nonce-${nonce}'`,
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'self'",
    'sandbox allow-scripts',
  ].join('; ');
}

/** A configuration's banner, as the preview frames of its page show it. */
export async function previewRoutes(app: FastifyInstance, { db }: { db: Db }) {
  app.get<{ Params: { id: string } }>(
    '/cookies/configurations/:id/preview',
    { config: { permission: 'cookies:view' } },
    async (request, reply) => {
      const layer = queryOf(request.query, 'layer') as PreviewLayer;
      if (!previewLayers.includes(layer)) throw new AppError('notFound');
      const locale = queryOf(request.query, 'locale');
      const script = await previewScript(db, tenantOf(request).tenantId, request.params.id, locale);
      const nonce = randomBytes(16).toString('base64');
      // Its origin is opaque (the sandbox): asking to key it by origin means nothing there, and
      // Chromium then warns on every page of this site that asks it after.
      reply.removeHeader('origin-agent-cluster');
      return reply
        .header('content-security-policy', previewPolicy(nonce))
        .header('x-frame-options', 'SAMEORIGIN')
        .type('text/html; charset=utf-8')
        .send(previewDocument({ locale, layer, script, nonce }));
    },
  );
}
