import type { FastifyInstance, FastifyReply } from 'fastify';
import {
  describeLink,
  passwordWeakness,
  requestPasswordReset,
  setPasswordFromLink,
} from '../../accounts/index.js';
import type { Config } from '../../platform/config.js';
import type { Db } from '../../platform/db.js';
import { parseForm, queryOf } from '../web/forms.js';
import { csrfToken, redirectTo, sendPage } from '../web/layout.js';
import { type LinkMailer, passwordLinkUrl, sendPasswordLink } from '../web/password-links.js';
import {
  ForgotPasswordForm,
  forgotPasswordFormOptions,
  LinkPasswordForm,
  linkPasswordFormOptions,
} from './schemas.js';
import { forgotPasswordForm, linkGone, linkPasswordForm } from './views.js';

/**
 * The page a one-time link opens (an invitation, a password reset): the person sets their
 * password, then signs in. Open to visitors; the link's token is the only credential.
 */
export async function linkRoutes(
  app: FastifyInstance,
  {
    db,
    config,
    mailer,
  }: {
    db: Db;
    config: Pick<Config, 'passwordHashCost' | 'publicBaseUrl'>;
    mailer: LinkMailer | undefined;
  },
) {
  const showForgot = (reply: FastifyReply, sent: boolean) =>
    sendPage(reply, {
      title: 'Forgot your password?',
      body: forgotPasswordForm({ csrfToken: csrfToken(reply), mailed: mailer !== undefined, sent }),
    });

  app.get('/forgot-password', { config: { permission: 'public' } }, (_request, reply) =>
    showForgot(reply, false),
  );

  // The answer is the same whatever the e-mail, and the e-mail goes out after it: neither the
  // page nor its timing tells which e-mails have accounts.
  app.post('/forgot-password', { config: { permission: 'public' } }, async (request, reply) => {
    const { input } = parseForm(ForgotPasswordForm, request.body, forgotPasswordFormOptions);
    const email = (input.email ?? '').slice(0, 254);
    if (mailer && email) {
      const asked = await db.transaction().execute((trx) =>
        requestPasswordReset(trx, email, {
          ip: request.ip,
          userAgent: request.headers['user-agent'] ?? null,
        }),
      );
      if (asked) {
        const link = passwordLinkUrl(config.publicBaseUrl, asked.token);
        void sendPasswordLink(
          mailer,
          asked.user,
          'password_reset',
          link,
          { name: '', email: '' },
          request.log,
        );
      }
    }
    return showForgot(reply, true);
  });

  const gone = (reply: FastifyReply) =>
    sendPage(reply, { status: 410, title: 'Link expired', body: linkGone() });

  app.get('/password', { config: { permission: 'public' } }, async (request, reply) => {
    const token = queryOf(request.query, 'token');
    const link = await describeLink(db, token);
    if (!link) return gone(reply);
    // The page itself must not leak the token onwards (the security headers say no-referrer).
    return sendPage(reply, {
      title: 'Set your password',
      body: linkPasswordForm({
        csrfToken: csrfToken(reply),
        token,
        ...link,
        errors: [],
        fieldErrors: {},
      }),
    });
  });

  app.post('/password', { config: { permission: 'public' } }, async (request, reply) => {
    const form = parseForm(LinkPasswordForm, request.body, linkPasswordFormOptions);
    const token = form.input.token ?? '';
    const link = await describeLink(db, token);
    if (!link) return gone(reply);
    const refuse = (fieldErrors: Record<string, string>) =>
      sendPage(reply, {
        status: 400,
        title: 'Set your password',
        body: linkPasswordForm({
          csrfToken: csrfToken(reply),
          token,
          ...link,
          errors: [],
          fieldErrors,
        }),
      });
    if (!form.ok) return refuse(form.refusal.fields);
    if (form.values.confirm_password !== form.values.new_password) {
      return refuse({ confirm_password: 'The two passwords are not the same.' });
    }
    const password = form.values.new_password;
    const weakness = await passwordWeakness(password, [link.email]);
    if (weakness) return refuse({ new_password: weakness });
    const done = await db.transaction().execute((trx) =>
      setPasswordFromLink(trx, token, password, config.passwordHashCost, {
        ip: request.ip,
        userAgent: request.headers['user-agent'] ?? null,
      }),
    );
    if (!done) return gone(reply);
    return redirectTo(reply, '/sign-in?notice=password-set');
  });
}
