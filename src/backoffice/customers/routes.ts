import { create as contentDisposition } from 'content-disposition';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { listTeam } from '../../accounts/index.js';
import { listApiKeys } from '../../api-keys/index.js';
import {
  type ChannelChangeWriter,
  customerChannelChanges,
  listChannels,
  setChannel,
  tenantChannels,
} from '../../channels/index.js';
import { browseCookieDecisions } from '../../cookies/index.js';
import type { OutsideProofs } from '../../decision-log/index.js';
import { eraseCustomer } from '../../erasure/index.js';
import { downloadEvidencePack } from '../../evidence/index.js';
import type { Db } from '../../platform/db.js';
import { AppError } from '../../platform/errors.js';
import type { NoteSigner } from '../../proof/index.js';
import type { Registry } from '../../record-kinds/index.js';
import { lookUpCustomer } from '../../records/index.js';
import type { SubjectVault } from '../../subjects/index.js';
import { findSubjectId } from '../../subjects/index.js';
import { auditBy, tenantOf, zoneOf } from '../web/context.js';
import { parseForm } from '../web/forms.js';
import { html } from '../web/html.js';
import { csrfToken, redirectTo, sectionPage } from '../web/layout.js';
import { customerChannels } from './channel-views.js';
import { customerCookieChoices } from './cookie-choice-views.js';
import {
  ChannelChangeForm,
  CustomerForm,
  channelChangeFormOptions,
  customerFormOptions,
  ErasureForm,
  erasureFormOptions,
} from './schemas.js';
import { customerResult, customerSearch, erasureConfirmation } from './views.js';

const historyLimit = 500;
const channelChangeLimit = 200;

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
    registry,
    signer,
    kick,
    channelWriter,
    outside,
  }: {
    db: Db;
    vault: SubjectVault;
    registry: Registry;
    signer: NoteSigner;
    kick: () => Promise<void>;
    channelWriter: ChannelChangeWriter;
    outside?: OutsideProofs;
  },
) {
  const page = sectionPage('customers', notices);

  /** The customer's page: the look-up's form, and what was found of a valid id. */
  const show = async (
    request: FastifyRequest,
    reply: FastifyReply,
    form: ReturnType<typeof parseForm<typeof CustomerForm>>,
    notice?: string,
  ) => {
    const { tenantId, permissions } = tenantOf(request);
    const mayErase = permissions.has('customers:erase');
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
      const channels = permissions.has('block_channels:view')
        ? customerChannels({
            customerId,
            states: await listChannels(db, vault, tenantId, customerId),
            names: new Map((await tenantChannels(db, tenantId)).map((c) => [c.code, c.name])),
            zone: zoneOf(request),
            mayEdit: permissions.has('block_channels:edit'),
            csrfToken: csrfToken(reply),
            changes: await customerChannelChanges(
              db,
              vault,
              tenantId,
              customerId,
              channelChangeLimit,
            ),
            changeLimit: channelChangeLimit,
            keyNames: new Map((await listApiKeys(db, tenantId)).map((k) => [k.id, k.name])),
            userNames: new Map((await listTeam(db, tenantId)).map((u) => [u.id, u.email])),
          })
        : html``;
      const signedInChoices = await browseCookieDecisions(
        db,
        vault,
        tenantId,
        { customerId },
        undefined,
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
        channels,
        cookieChoices: customerCookieChoices({
          customerId,
          decisions: signedInChoices.decisions,
          more: signedInChoices.next !== undefined,
          zone: zoneOf(request),
          mayOpen: permissions.has('cookies:view'),
        }),
        hasCookieChoices: signedInChoices.decisions.length > 0,
      });
    }
    const title = valid ? `Customer ${customerId}` : 'Customers';
    const body = html`${customerSearch({ customerId, error, mayErase })}${result}`;
    return page(request, reply, title, body, error ? 400 : 200, notice);
  };

  app.get('/customers', { config: { permission: 'customers:view' } }, (request, reply) =>
    show(request, reply, parseForm(CustomerForm, request.query, customerFormOptions)),
  );

  // A customer's channel blocked or allowed by a user: recorded through the hot path's writer
  // as an API key's change is, with the user as its evidence (no key), and audited naming them.
  // The customer's page is answered at once: the id stays out of every URL.
  app.post(
    '/customers/channels',
    { config: { permission: 'block_channels:edit' } },
    async (request, reply) => {
      const user = tenantOf(request);
      const form = parseForm(ChannelChangeForm, request.body, channelChangeFormOptions);
      if (!form.ok) return redirectTo(reply, '/customers');
      const { customer_id: customerId, product_code, channel, blocked } = form.values;
      const { actorKind, actor, actorName, ip, userAgent } = auditBy(request);
      const outcome = await setChannel(
        db,
        channelWriter,
        vault,
        {
          tenantId: user.tenantId,
          apiKeyId: null,
          userId: user.userId,
          auditedAs: { tenantId: user.tenantId, actorKind, actor, actorName, ip, userAgent },
          ip,
          userAgent,
        },
        { customerId, productCode: product_code, channel },
        blocked === 'true',
      );
      const what = `${channel} for ${product_code}`;
      const notice =
        outcome.kind === 'recorded'
          ? `${blocked === 'true' ? 'Blocked' : 'Allowed'} ${what}.`
          : `${what} was already ${blocked === 'true' ? 'blocked' : 'allowed'}: nothing was recorded.`;
      const lookUp = parseForm(CustomerForm, { customer_id: customerId }, customerFormOptions);
      return show(request, reply, lookUp, notice);
    },
  );

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
      const result = await eraseCustomer(db, vault, registry, tenantId, customerId, {
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
        const context = { db, vault, registry, signer, kick, ...(outside ? { outside } : {}) };
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
