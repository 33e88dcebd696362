import type { OutgoingMail } from './mailer';
import type { MailLanguage } from './templates';

const SIGN = {
  en: '\n\n— BYTX Platform',
  es: '\n\n— Plataforma BYTX',
};

/** Security notices of the accounts module (issue 37), in the user's language (en default, es). */
export const securityTemplates = {
  /** Repeated failed logins on the account (accounts/login-backoff.ts): at most one per 24 hours. */
  loginFailures: (to: string, failures: number, lang: MailLanguage): OutgoingMail =>
    lang === 'es'
      ? {
          to,
          subject: 'Intentos fallidos de inicio de sesión en tu cuenta de BYTX',
          text: `Ha habido ${failures} intentos fallidos de iniciar sesión en tu cuenta. Mientras sigan, cada nuevo intento tiene que esperar más (hasta 15 minutos), también con la contraseña correcta.\n\nSi no fuiste tú, alguien puede estar intentando adivinar tu contraseña: usa una contraseña larga y única y activa la verificación en dos pasos en Ajustes.${SIGN.es}`,
        }
      : {
          to,
          subject: 'Failed sign-in attempts on your BYTX account',
          text: `There have been ${failures} failed attempts to sign in to your account. While they go on, each new attempt has to wait longer (up to 15 minutes), even with the right password.\n\nIf this was not you, someone may be trying to guess your password: use a long, unique password and turn on two-factor authentication in Settings.${SIGN.en}`,
        },

  /** 2FA turned on or off: the other sessions were ended. */
  twofaChanged: (to: string, enabled: boolean, lang: MailLanguage): OutgoingMail =>
    lang === 'es'
      ? {
          to,
          subject: enabled
            ? 'Verificación en dos pasos activada en BYTX'
            : 'Verificación en dos pasos desactivada en BYTX',
          text: `La verificación en dos pasos de tu cuenta se ha ${enabled ? 'activado' : 'desactivado'} y se han cerrado las demás sesiones. Si no fuiste tú, cambia tu contraseña y contacta con soporte.${SIGN.es}`,
        }
      : {
          to,
          subject: enabled
            ? 'Two-factor authentication turned on at BYTX'
            : 'Two-factor authentication turned off at BYTX',
          text: `Two-factor authentication was turned ${enabled ? 'on' : 'off'} for your account and your other sessions were signed out. If this was not you, change your password and contact support.${SIGN.en}`,
        },
};
