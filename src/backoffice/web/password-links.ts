import type { FastifyRequest } from 'fastify';

export { passwordLinkUrl } from '../../accounts/index.js';

/** What sends a link by e-mail (`src/platform/mail.ts`'s mailer). */
export interface LinkMailer {
  send(message: { to: string; subject: string; text: string }): Promise<void>;
}

const lifetime = { invitation: '72 hours', password_reset: 'one hour' } as const;

/**
 * E-mails a one-time link when a mailer is configured; true when it went. A failed delivery is
 * logged (never the link) and answered false, so the caller shows the link instead.
 */
export async function sendPasswordLink(
  mailer: LinkMailer | undefined,
  to: { email: string; name: string },
  purpose: 'invitation' | 'password_reset',
  link: string,
  from: { name: string; email: string; tenantAlias?: string },
  log?: FastifyRequest['log'],
): Promise<boolean> {
  if (!mailer) return false;
  const where = from.tenantAlias
    ? `the consent back-office of ${from.tenantAlias}`
    : 'the consent back-office';
  const text =
    purpose === 'invitation'
      ? `Hello ${to.name},\n\n${from.name || from.email} invites you to ${where}.\nSet your password here (the link works once, for ${lifetime.invitation}):\n\n${link}\n\nIf you did not expect this, ignore this e-mail.\n`
      : `Hello ${to.name},\n\nA new password was asked for your account on ${where}.\nSet it here (the link works once, for ${lifetime.password_reset}):\n\n${link}\n\nIf you did not ask for this, ignore this e-mail: your password stays as it is.\n`;
  const subject = purpose === 'invitation' ? `Your invitation to ${where}` : 'Set a new password';
  try {
    await mailer.send({ to: to.email, subject, text });
    return true;
  } catch (error) {
    log?.warn({ err: error, purpose }, 'could not e-mail a password link');
    return false;
  }
}
