import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { createTenantChannel, tenantChannels } from '../../channels/index.js';
import type { Db } from '../../platform/db.js';
import { auditBy, tenantOf } from '../web/context.js';
import { noRefusal, parseForm, type Refusal, refusalOf } from '../web/forms.js';
import { csrfToken, redirectTo, sectionPage } from '../web/layout.js';
import { TenantChannelForm, tenantChannelFormOptions } from './schemas.js';
import { channelsPage } from './views.js';

const notices: Record<string, string> = { created: 'Channel added.' };

/** The form's fields as sent (the service checks them). */
const valuesOf = (body: unknown) => {
  const { input } = parseForm(TenantChannelForm, body, tenantChannelFormOptions);
  return { code: input.code ?? '', name: input.name ?? '' };
};

/** The tenant's channels: seen by those who see channel blocks, added by those who change them. */
export async function channelPageRoutes(app: FastifyInstance, { db }: { db: Db }) {
  const page = sectionPage('channels', notices);

  const show = async (
    request: FastifyRequest,
    reply: FastifyReply,
    values = { code: '', name: '' },
    refusal: Refusal = noRefusal,
  ) => {
    const user = tenantOf(request);
    const body = channelsPage({
      channels: await tenantChannels(db, user.tenantId),
      zone: user.timeZone,
      mayAdd: user.permissions.has('block_channels:edit'),
      csrfToken: csrfToken(reply),
      values,
      errors: refusal.form,
      fieldErrors: refusal.fields,
    });
    return page(request, reply, 'Channels', body, refusal === noRefusal ? 200 : 400);
  };

  app.get('/channels', { config: { permission: 'block_channels:view' } }, (request, reply) =>
    show(request, reply),
  );

  app.post(
    '/channels',
    { config: { permission: 'block_channels:edit' } },
    async (request, reply) => {
      const { tenantId } = tenantOf(request);
      const values = valuesOf(request.body);
      try {
        await db
          .transaction()
          .execute((trx) => createTenantChannel(trx, auditBy(request), tenantId, values));
      } catch (error) {
        const refusal = refusalOf(error, tenantChannelFormOptions.messages);
        if (!refusal) throw error;
        return show(request, reply, values, refusal);
      }
      return redirectTo(reply, '/channels?notice=created');
    },
  );
}
