import { create as contentDisposition } from 'content-disposition';
import type { FastifyInstance } from 'fastify';
import { eraseCustomer } from '../../erasure/index.js';
import { downloadEvidencePack } from '../../evidence/index.js';
import type { Db } from '../../platform/db.js';
import { AppError } from '../../platform/errors.js';
import type { NoteSigner } from '../../proof/index.js';
import { lookUpCustomer } from '../../records/index.js';
import type { SubjectVault } from '../../subjects/index.js';
import { findSubjectId } from '../../subjects/index.js';
import { auditBy, tenantOf, zoneOf } from '../web/context.js';
import { parseForm } from '../web/forms.js';
import { html } from '../web/html.js';
import { csrfToken, redirectTo, sectionPage } from '../web/layout.js';
import { CustomerForm, customerFormOptions, ErasureForm, erasureFormOptions } from './schemas.js';
import { customerResult, customerSearch, erasureConfirmation } from './views.js';

const historyLimit = 500;

const notices: Record<string, string> = {
  erased:
    'The customer was erased: their customer id, IP addresses and user agents can no longer be read by anyone. Their decisions stay in the decision log, without whose they were.',
  'nothing-to-erase': 'There was no record of that customer left to erase.',
  'no-evidence': 'There is no record of that customer to put in an evidence pack.',
  'evidence-not-ready':
    "The customer's latest records are not in the decision log yet. Try again in a moment.",
};

export async function customerRoutes(
  app: FastifyInstance,
  {
    db,
    vault,
    signer,
    kick,
  }: { db: Db; vault: SubjectVault; signer: NoteSigner; kick: () => Promise<void> },
) {
  const page = sectionPage('customers', notices);

  app.get('/customers', { config: { permission: 'customers:view' } }, async (request, reply) => {
    const { tenantId, permissions } = tenantOf(request);
    const mayErase = permissions.has('customers:erase');
    const form = parseForm(CustomerForm, request.query, customerFormOptions);
    const customerId = form.input.customer_id ?? '';
    const valid = form.ok;
    const error = customerId !== '' && !form.ok ? form.refusal.fields.customer_id : undefined;
    let result = html``;
    if (valid) {
      const { standings, history, erasures } = await lookUpCustomer(
        db,
        vault,
        tenantId,
        customerId,
        historyLimit,
        auditBy(request),
      );
      result = customerResult({
        customerId,
        standings,
        history,
        historyLimit,
        erasures,
        zone: zoneOf(request),
        mayErase,
        csrfToken: csrfToken(reply),
      });
    }
    const title = valid ? `Customer ${customerId}` : 'Customers';
    const body = html`${customerSearch({ customerId, error, mayErase })}${result}`;
    return page(request, reply, title, body, error ? 400 : 200);
  });

  // Erasing asks first, and asks for the id to be typed again: it cannot be undone.
  app.get(
    '/customers/erase',
    { config: { permission: 'customers:erase' } },
    async (request, reply) => {
      const { tenantId } = tenantOf(request);
      const form = parseForm(CustomerForm, request.query, customerFormOptions);
      if (!form.ok) return redirectTo(reply, '/customers');
      const customerId = form.values.customer_id;
      if (!(await findSubjectId(db, vault, tenantId, customerId))) {
        return redirectTo(reply, '/customers?notice=nothing-to-erase');
      }
      const body = erasureConfirmation({
        customerId,
        csrfToken: csrfToken(reply),
        error: undefined,
      });
      return page(request, reply, `Erase customer ${customerId}`, body);
    },
  );

  app.post(
    '/customers/erase',
    { config: { permission: 'customers:erase' } },
    async (request, reply) => {
      const { tenantId } = tenantOf(request);
      const form = parseForm(ErasureForm, request.body, erasureFormOptions);
      if (!form.ok) return redirectTo(reply, '/customers');
      const { customer_id: customerId, confirm } = form.values;
      if (confirm !== customerId) {
        const body = erasureConfirmation({
          customerId,
          csrfToken: csrfToken(reply),
          error: 'Type the customer id exactly as shown to confirm.',
        });
        return page(request, reply, `Erase customer ${customerId}`, body, 400);
      }
      const { actorKind, actor, actorName, ip, userAgent } = auditBy(request);
      const result = await eraseCustomer(db, vault, tenantId, customerId, {
        actorKind,
        actor,
        actorName,
        ip,
        userAgent,
      });
      return redirectTo(
        reply,
        `/customers?notice=${result.erased ? 'erased' : 'nothing-to-erase'}`,
      );
    },
  );

  // A POST, so that the customer id stays out of every URL (and so out of logs and history).
  app.post(
    '/customers/evidence',
    { config: { permission: 'customers:view' } },
    async (request, reply) => {
      const { tenantId } = tenantOf(request);
      const form = parseForm(CustomerForm, request.body, customerFormOptions);
      if (!form.ok) return redirectTo(reply, '/customers');
      try {
        const context = { db, vault, signer, kick };
        const pack = await downloadEvidencePack(
          context,
          tenantId,
          form.values.customer_id,
          auditBy(request),
        );
        return reply
          .type('application/zip')
          .header('cache-control', 'no-store')
          .header('content-disposition', contentDisposition(pack.fileName))
          .send(Buffer.from(pack.bytes));
      } catch (error) {
        if (!(error instanceof AppError)) throw error;
        if (error.kind === 'notFound') return redirectTo(reply, '/customers?notice=no-evidence');
        if (error.kind === 'unavailable') {
          return redirectTo(reply, '/customers?notice=evidence-not-ready');
        }
        throw error;
      }
    },
  );
}
