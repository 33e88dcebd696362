import { SIGNAL_LIMITS, type SignalSecretRotation } from '@bytx/contract';
import type { AppContext } from '../../../../context';
import { randomToken, safeEqual, sealContext, sha256 } from '../../../../lib/crypto';
import { Mailer, type OutgoingMail } from '../../../mail/mailer';
import { SignalRepository, type SignalBotRow } from './repository';

export { SIGNAL_SECRET_EVENT } from './repository';

/**
 * Webhook secrets shown once (issue 37 point 9; docs/bots/signal.md). A secret is 32 random bytes
 * (base64url, 43 characters); only its SHA-256 hex is stored. A 256-bit random secret cannot be guessed
 * from its hash, so no salt or slow hash is needed (those protect low-entropy passwords); the comparison
 * is of two 64-character hex digests in constant time. The secret is answered by the create and rotate
 * calls and never again: nothing can read it back.
 */

/** The stored form of a secret. */
export const hashSecret = (secret: string) => sha256(secret);

/** A fresh secret (shown once) and its hash (stored). */
export function newSecret(): { secret: string; hash: string } {
  const secret = randomToken();
  return { secret, hash: hashSecret(secret) };
}

/**
 * Whether a webhook body's `secret` is this bot's. A row not yet converted (its sealed secret of
 * migration 0308, between the migration and the start's conversion) is opened and compared as before.
 */
export function secretMatches(
  ctx: AppContext,
  hook: Pick<SignalBotRow, 'botId' | 'secretHash' | 'secretEnc'>,
  given: unknown,
): boolean {
  if (typeof given !== 'string' || given.length === 0 || given.length > SIGNAL_LIMITS.secretChars) {
    return false;
  }
  if (hook.secretHash !== null) return safeEqual(hashSecret(given), hook.secretHash);
  if (hook.secretEnc === null) return false;
  try {
    return safeEqual(given, ctx.secretBox.open(hook.secretEnc, sealContext.signalWebhook(hook.botId)));
  } catch {
    // A value no loaded key opens: no secret matches it (the owner rotates to get a working one).
    return false;
  }
}

/**
 * On start: every secret still sealed (created before migration 0830) is replaced by its hash and the
 * sealed value cleared. The same secret keeps working; it just cannot be revealed any more. Answers how
 * many were converted; a value no loaded key opens is left (logged) and matches nothing.
 */
export async function convertSealedSecrets(ctx: AppContext): Promise<number> {
  const signals = new SignalRepository(ctx.db);
  let n = 0;
  for (const row of await signals.sealedSecrets()) {
    let plain: string;
    try {
      plain = ctx.secretBox.open(row.secretEnc, sealContext.signalWebhook(row.botId));
    } catch (err) {
      ctx.log.error(
        { botId: row.botId, err: (err as Error).message },
        'a sealed signal webhook secret could not be opened; the owner must rotate it',
      );
      continue;
    }
    if (await signals.convertSealed(row.botId, row.secretEnc, hashSecret(plain))) n++;
  }
  if (n > 0) ctx.log.info({ converted: n }, 'signal webhook secrets now stored as hashes');
  return n;
}

/** The notice mailed after a password change replaced the user's webhook secrets. */
function rotatedMail(to: string, lang: string, bots: { exchange: string; symbol: string }[]): OutgoingMail {
  const list = bots.map((b) => `- ${b.symbol} (${b.exchange})`).join('\n');
  return lang.startsWith('es')
    ? {
        to,
        subject: 'Se han cambiado los secretos de tus Signal bots',
        text:
          'Como la contraseña de tu cuenta ha cambiado, se ha sustituido el secreto del webhook de estos ' +
          `Signal bots:\n${list}\n\nLas alertas con el secreto anterior se rechazan. Abre /signalbot, pulsa ` +
          '"Rotar secreto" en cada bot y pon el nuevo secreto en tus alertas.\n\n— BYTX',
      }
    : {
        to,
        subject: 'Your Signal bots got new webhook secrets',
        text:
          'Because your account password was changed, the webhook secret of these Signal bots was ' +
          `replaced:\n${list}\n\nAlerts with the old secret are rejected. Open /signalbot, press ` +
          '"Rotate secret" on each bot and put the new secret in your alerts.\n\n— BYTX',
      };
}

/**
 * Called by the password change (modules/accounts): every Signal bot of the user gets a new secret that
 * no one is shown (whoever knew the old one, perhaps with the old password, loses it), a `warn` event in
 * the bot's event log, and the user a mail listing them; the page tells the owner to rotate to get a
 * secret to use. Never throws: the password has changed already; a failure is logged. Answers how many
 * secrets were replaced.
 */
export async function rotateSignalSecretsForUser(
  ctx: AppContext,
  user: { id: string; email: string; language: string },
  reason: SignalSecretRotation = 'password_change',
): Promise<number> {
  try {
    const signals = new SignalRepository(ctx.db);
    const bots = await signals.botsOfUser(user.id);
    if (bots.length === 0) return 0;
    await signals.replaceSecrets(
      bots.map((b) => ({ botId: b.botId, hash: newSecret().hash })),
      reason,
    );
    ctx.log.info({ userId: user.id, bots: bots.length, reason }, 'signal webhook secrets replaced');
    await new Mailer(ctx.config, ctx.log)
      .send(rotatedMail(user.email, user.language, bots))
      .catch((err: unknown) => ctx.log.warn({ err: (err as Error).message }, 'signal notice mail failed'));
    return bots.length;
  } catch (err) {
    ctx.log.error({ err, userId: user.id }, 'could not replace the signal webhook secrets');
    return 0;
  }
}
