import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../src/platform/errors.js';
import { createMailer } from '../../src/platform/mail.js';
import { type SmtpListener, startSmtpServer } from '../helpers/smtp.js';

describe('outgoing e-mail over SMTP', () => {
  let smtp: SmtpListener;
  beforeAll(async () => {
    smtp = await startSmtpServer();
  });
  afterAll(() => smtp?.close());

  it('without SMTP_URL there is no mailer: links are shown instead', () => {
    expect(createMailer({ smtpUrl: undefined, mailFrom: 'x <x@example.test>' })).toBeUndefined();
  });

  it('delivers to the SMTP server, from MAIL_FROM, with a long link intact', async () => {
    const mailer = createMailer({
      smtpUrl: smtp.url,
      mailFrom: 'Back-office <no-reply@acme.test>',
    });
    const link = `https://consent.example.test/backoffice/password?token=${'Ab3_-'.repeat(20)}`;
    await mailer?.send({
      to: 'jane@acme.test',
      subject: 'Your invitation',
      text: `Set it here:\n\n${link}\n`,
    });
    mailer?.close();
    const mail = await smtp.next((m) => m.to.includes('jane@acme.test'));
    expect(mail.from).toBe('no-reply@acme.test');
    expect(mail.subject).toBe('Your invitation');
    expect(mail.text).toContain(link);
  });

  it('a server that cannot be reached is 503 1009, said in words', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as { port: number };
    await new Promise((resolve) => closed.close(resolve));
    const mailer = createMailer({
      smtpUrl: `smtp://127.0.0.1:${port}`,
      mailFrom: 'x@example.test',
    });
    const sending = mailer?.send({ to: 'jane@acme.test', subject: 's', text: 't' });
    await expect(sending).rejects.toBeInstanceOf(AppError);
    await expect(sending).rejects.toMatchObject({
      status: 503,
      code: '1009',
      message: 'The e-mail could not be sent.',
    });
    mailer?.close();
  });
});
