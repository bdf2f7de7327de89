import type { AddressInfo } from 'node:net';
import { simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  from: string;
  to: string[];
  subject: string;
  text: string;
}

export interface SmtpListener {
  /** `smtp://127.0.0.1:<port>`, for `SMTP_URL`. */
  url: string;
  received: ReceivedMail[];
  /** The first message that matches, received already or when it comes. */
  next(matches?: (mail: ReceivedMail) => boolean): Promise<ReceivedMail>;
  close(): Promise<void>;
}

/**
 * A real SMTP server on loopback (the `smtp-server` package): the service's mailer speaks SMTP
 * to it as to any other, and each message is parsed (`mailparser`) as a mail client would.
 */
export async function startSmtpServer(): Promise<SmtpListener> {
  const received: ReceivedMail[] = [];
  const waiting: Array<{
    matches: (m: ReceivedMail) => boolean;
    resolve: (m: ReceivedMail) => void;
  }> = [];
  const server = new SMTPServer({
    secure: false,
    disabledCommands: ['STARTTLS'],
    authOptional: true,
    logger: false,
    onData(stream, session, callback) {
      simpleParser(stream)
        .then((parsed) => {
          const mail: ReceivedMail = {
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            to: session.envelope.rcptTo.map((r) => r.address),
            subject: parsed.subject ?? '',
            text: parsed.text ?? '',
          };
          received.push(mail);
          for (const w of [...waiting]) {
            if (w.matches(mail)) {
              waiting.splice(waiting.indexOf(w), 1);
              w.resolve(mail);
            }
          }
          callback();
        })
        .catch(callback);
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    received,
    next(matches = () => true) {
      const already = received.find(matches);
      if (already) return Promise.resolve(already);
      return new Promise((resolve) => waiting.push({ matches, resolve }));
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
