import type { FastifyInstance } from 'fastify';
import {
  auditLog,
  lastAuditRun,
  logOverview,
  queuedLeaves,
  receiptOf,
  recordLogAudit,
} from '../../decision-log/index.js';
import { decisions } from '../../decisions/index.js';
import type { Db } from '../../platform/db.js';
import { uuidPattern } from '../../platform/ids.js';
import type { NoteSigner } from '../../proof/index.js';
import type { Registry } from '../../record-kinds/index.js';
import type { SubjectVault } from '../../subjects/index.js';
import { auditBy, tenantOf, zoneOf } from '../web/context.js';
import { csrfToken, redirectTo, sectionPage } from '../web/layout.js';
import { logPage, receiptQueued } from './views.js';

const logSection = sectionPage('log', { audited: 'Audit finished.' });
const customerSection = sectionPage('customers');
const validId = new RegExp(uuidPattern);

/** The tenant's decision log: its checkpoint, key and audits; and receipts to download. */
export async function logPageRoutes(
  app: FastifyInstance,
  {
    db,
    signer,
    vault,
    registry,
  }: { db: Db; signer: NoteSigner; vault: SubjectVault; registry: Registry },
) {
  app.get('/log', { config: { permission: 'decision_log:view' } }, async (request, reply) => {
    const { tenantId } = tenantOf(request);
    const [{ key, checkpoint, signedAt }, queued, lastAudit] = await Promise.all([
      logOverview(db, signer, tenantId),
      queuedLeaves(db, tenantId),
      lastAuditRun(db, tenantId),
    ]);
    const body = logPage({
      key,
      checkpoint,
      checkpointAt: signedAt,
      zone: zoneOf(request),
      queued,
      lastAudit,
      csrfToken: csrfToken(reply),
    });
    return logSection(request, reply, 'Decision log', body);
  });

  app.post(
    '/log/audit',
    { config: { permission: 'decision_log:review' } },
    async (request, reply) => {
      const user = tenantOf(request);
      const report = await auditLog(db, vault, registry, user.tenantId);
      await db.transaction().execute((trx) => recordLogAudit(trx, report, auditBy(request)));
      return redirectTo(reply, '/log?notice=audited');
    },
  );

  app.get<{ Params: { id: string } }>(
    '/decisions/:id/receipt',
    { config: { permission: 'customers:view' } },
    async (request, reply) => {
      const { tenantId } = tenantOf(request);
      const id = request.params.id;
      if (!validId.test(id)) return reply.callNotFound();
      const result = await receiptOf(db, vault, registry, decisions, tenantId, id);
      if (!result.ready) {
        return customerSection(request, reply, 'Receipt not ready yet', receiptQueued(id), 202);
      }
      return reply
        .header('content-disposition', `attachment; filename="receipt-${id.toLowerCase()}.json"`)
        .type('application/json; charset=utf-8')
        .send(`${JSON.stringify({ data: result.receipt }, null, 2)}\n`);
    },
  );
}
