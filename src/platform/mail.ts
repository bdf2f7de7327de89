import { createTransport } from 'nodemailer';
import type { Config } from './config.js';
import { AppError } from './errors.js';

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
}

export interface Mailer {
  /** Hands the message to the SMTP server; `503 1009` when it cannot. */
  send(message: MailMessage): Promise<void>;
  close(): void;
}

/** Seconds, not minutes: a page waits on the answer. */
const timeoutMs = 10_000;

/**
 * The back-office's outgoing e-mail (invitations, password links, review requests) through the
 * SMTP server of `SMTP_URL` (nodemailer; credentials and `smtps://` in the URL as usual).
 * Undefined without `SMTP_URL`: callers then show the link to the person who asked for it.
 * A failure is logged by the caller without the message, whose links are secrets.
 */
export function createMailer(config: Pick<Config, 'smtpUrl' | 'mailFrom'>): Mailer | undefined {
  if (!config.smtpUrl) return undefined;
  const url = new URL(config.smtpUrl);
  const transport = createTransport({
    host: url.hostname,
    port: url.port ? Number(url.port) : url.protocol === 'smtps:' ? 465 : 587,
    secure: url.protocol === 'smtps:',
    ...(url.username
      ? {
          auth: {
            user: decodeURIComponent(url.username),
            pass: decodeURIComponent(url.password),
          },
        }
      : {}),
    connectionTimeout: timeoutMs,
    greetingTimeout: timeoutMs,
    socketTimeout: timeoutMs,
  });
  return {
    async send(message) {
      try {
        await transport.sendMail({ from: config.mailFrom, ...message });
      } catch (error) {
        const refused = new AppError('unavailable', { message: 'The e-mail could not be sent.' });
        refused.cause = error;
        throw refused;
      }
    },
    close() {
      transport.close();
    },
  };
}
