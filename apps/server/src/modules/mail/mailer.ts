import fs from 'node:fs';
import path from 'node:path';
import type { FastifyBaseLogger } from 'fastify';
import nodemailer, { type Transporter } from 'nodemailer';
import type { Config } from '../../config';
import { HttpError } from '../../lib/errors';

export interface OutgoingMail {
  to: string;
  subject: string;
  text: string;
}

/** `jane@example.com` -> `j***@example.com`: enough to follow a log, not a mailing list. */
export const maskEmail = (email: string) => {
  const [local = '', domain = ''] = email.split('@');
  return `${local.slice(0, 1)}***@${domain}`;
};

let counter = 0;

/**
 * Every mail is composed once as RFC 822 and written to the outbox folder as an `.eml` file (so the
 * embedded platform works with no mail server, and tests read codes from it); with SMTP_URL it is
 * also sent through SMTP. The subject goes to the log; bodies (which carry codes) never do.
 */
export class Mailer {
  private readonly composer = nodemailer.createTransport({ streamTransport: true, buffer: true });
  private readonly smtp: Transporter | null;

  constructor(
    private readonly config: Pick<Config, 'SMTP_URL' | 'MAIL_FROM' | 'mailOutboxDir'>,
    private readonly log: FastifyBaseLogger,
  ) {
    this.smtp = config.SMTP_URL ? nodemailer.createTransport(config.SMTP_URL) : null;
  }

  async send(mail: OutgoingMail): Promise<string> {
    const info = (await this.composer.sendMail({
      from: this.config.MAIL_FROM,
      to: mail.to,
      subject: mail.subject,
      text: mail.text,
    })) as { message: Buffer; envelope: { from: string; to: string[] } };
    fs.mkdirSync(this.config.mailOutboxDir, { recursive: true });
    counter = (counter + 1) % 1_000_000;
    const name = `${Date.now().toString().padStart(15, '0')}-${String(counter).padStart(6, '0')}-${Math.random()
      .toString(36)
      .slice(2, 8)}.eml`;
    const file = path.join(this.config.mailOutboxDir, name);
    await fs.promises.writeFile(file, info.message, { mode: 0o600 });
    this.log.info({ to: maskEmail(mail.to), subject: mail.subject, file: name }, 'mail written to outbox');
    if (this.smtp) {
      try {
        await this.smtp.sendMail({ envelope: info.envelope, raw: info.message });
        this.log.info({ to: maskEmail(mail.to), subject: mail.subject }, 'mail sent through SMTP');
      } catch (err) {
        this.log.error({ err: (err as Error).message, to: maskEmail(mail.to) }, 'SMTP send failed');
        throw new HttpError(502, 'The email could not be sent. Please try again later.');
      }
    }
    return file;
  }
}
