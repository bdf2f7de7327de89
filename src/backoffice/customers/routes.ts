import type { FastifyInstance } from 'fastify';
import { findTemplateStandings } from '../../consents/repository.js';
import { customerHistory } from '../../decisions/history.js';
import { customerIdPattern } from '../../decisions/schemas.js';
import type { Db } from '../../platform/db.js';
import { recordAudit } from '../audit/service.js';
import { auditBy, tenantOf } from '../web/context.js';
import { queryOf } from '../web/forms.js';
import { html } from '../web/html.js';
import { csrfToken, sendPage } from '../web/layout.js';
import { customerResult, customerSearch } from './views.js';

const historyLimit = 500;
const validCustomerId = new RegExp(customerIdPattern);

export async function customerRoutes(app: FastifyInstance, { db }: { db: Db }) {
  app.get('/customers', async (request, reply) => {
    const { tenantId } = tenantOf(request);
    const customerId = queryOf(request.query, 'customer_id').trim();
    const valid = validCustomerId.test(customerId);
    const error =
      customerId !== '' && !valid
        ? 'A customer id is 1 to 128 of A-Z a-z 0-9 . _ : @ + -'
        : undefined;
    let result = html``;
    if (valid) {
      const [standings, history] = await Promise.all([
        findTemplateStandings(db, tenantId, customerId),
        customerHistory(db, tenantId, customerId, historyLimit),
      ]);
      // Looking at a person's record is itself recorded.
      await recordAudit(db, {
        ...auditBy(request),
        action: 'customer.looked_up',
        target: customerId,
        details: { decisions: history.length },
      });
      result = customerResult({ customerId, standings, history, historyLimit });
    }
    return sendPage(reply, {
      status: error ? 400 : 200,
      title: valid ? `Customer ${customerId}` : 'Customers',
      section: 'customers',
      user: request.backofficeUser,
      csrfToken: csrfToken(reply),
      body: html`${customerSearch({ customerId, error })}${result}`,
    });
  });
}
