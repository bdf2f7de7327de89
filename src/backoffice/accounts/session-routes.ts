/** The signed-in person's own sessions (`/account/sessions`): see them, sign out of one. */
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import {
  type Account,
  type BackofficeUser,
  endOwnSession,
  openSessions,
} from '../../accounts/index.js';
import type { Config } from '../../platform/config.js';
import type { Db } from '../../platform/db.js';
import { auditBy, signedInUser, zoneOf } from '../web/context.js';
import { parseForm, queryOf } from '../web/forms.js';
import { csrfToken, redirectTo, sendPage } from '../web/layout.js';
import { ownSessionsPage } from './session-views.js';

const EndForm = Type.Object({ session: Type.String({ pattern: '^[0-9a-f]{64}$' }) });

const accountOf = (user: BackofficeUser): Account =>
  user.kind === 'tenant'
    ? { kind: 'user', id: user.userId }
    : { kind: 'operator', id: user.operatorId };

const notices: Record<string, string> = { ended: 'That browser is signed out.' };

export async function sessionRoutes(app: FastifyInstance, o: { db: Db; config: Config }) {
  const settings = { idleMinutes: o.config.sessionIdleMinutes, maxHours: o.config.sessionMaxHours };

  app.get('/account/sessions', { config: { permission: 'self' } }, async (request, reply) => {
    const user = signedInUser(request);
    const sessions = await openSessions(o.db, accountOf(user), settings);
    const notice = notices[queryOf(request.query, 'notice')];
    return sendPage(reply, {
      title: 'Sessions',
      section: 'account',
      user,
      csrfToken: csrfToken(reply),
      ...(notice ? { notice } : {}),
      body: ownSessionsPage({
        csrfToken: csrfToken(reply),
        sessions,
        current: user.sessionIdHash,
        zone: zoneOf(request),
      }),
    });
  });

  app.post('/account/sessions/end', { config: { permission: 'self' } }, async (request, reply) => {
    const user = signedInUser(request);
    const form = parseForm(EndForm, request.body, { messages: {} });
    if (form.ok && form.values.session !== user.sessionIdHash) {
      await o.db
        .transaction()
        .execute((trx) =>
          endOwnSession(trx, accountOf(user), form.values.session, auditBy(request)),
        );
    }
    return redirectTo(reply, '/account/sessions?notice=ended');
  });
}
