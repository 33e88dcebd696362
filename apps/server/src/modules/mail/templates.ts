import type { OutgoingMail } from './mailer';

export type MailLanguage = 'en' | 'es';

export const mailLanguage = (lang: string | null | undefined): MailLanguage => (lang === 'es' ? 'es' : 'en');

const SIGN = {
  en: '\n\n— BYTX Platform',
  es: '\n\n— Plataforma BYTX',
};

/** The mails the accounts module sends, in the user's language (en default, es). */
export const templates = {
  signupCode: (to: string, code: string, lang: MailLanguage): OutgoingMail =>
    lang === 'es'
      ? {
          to,
          subject: 'Tu código de verificación de BYTX',
          text: `Tu código de verificación es: ${code}\n\nCaduca en 10 minutos y solo se puede usar una vez. Si no has pedido crear una cuenta, ignora este correo.${SIGN.es}`,
        }
      : {
          to,
          subject: 'Your BYTX verification code',
          text: `Your verification code is: ${code}\n\nIt expires in 10 minutes and can be used once. If you did not ask to create an account, ignore this email.${SIGN.en}`,
        },

  signupExistingAccount: (to: string, lang: MailLanguage): OutgoingMail =>
    lang === 'es'
      ? {
          to,
          subject: 'Intento de registro con tu correo en BYTX',
          text: `Alguien ha pedido crear una cuenta de BYTX con este correo, pero ya tienes una. Si fuiste tú, inicia sesión; si olvidaste la contraseña, cámbiala desde Ajustes. Si no fuiste tú, no tienes que hacer nada.${SIGN.es}`,
        }
      : {
          to,
          subject: 'Sign-up attempt with your email on BYTX',
          text: `Someone asked to create a BYTX account with this email, but you already have one. If it was you, sign in instead. If it was not you, you do not need to do anything.${SIGN.en}`,
        },

  passwordChangeCode: (to: string, code: string, lang: MailLanguage): OutgoingMail =>
    lang === 'es'
      ? {
          to,
          subject: 'Código para cambiar tu contraseña de BYTX',
          text: `Tu código para cambiar la contraseña es: ${code}\n\nCaduca en 10 minutos y solo se puede usar una vez. Si no has pedido este cambio, cambia tu contraseña y activa la verificación en dos pasos.${SIGN.es}`,
        }
      : {
          to,
          subject: 'Your BYTX password change code',
          text: `Your password change code is: ${code}\n\nIt expires in 10 minutes and can be used once. If you did not ask for this, change your password and turn on two-factor authentication.${SIGN.en}`,
        },

  passwordChanged: (to: string, lang: MailLanguage): OutgoingMail =>
    lang === 'es'
      ? {
          to,
          subject: 'Tu contraseña de BYTX ha cambiado',
          text: `La contraseña de tu cuenta se ha cambiado y se han cerrado las demás sesiones. Si no fuiste tú, contacta con soporte.${SIGN.es}`,
        }
      : {
          to,
          subject: 'Your BYTX password was changed',
          text: `Your account password was changed and your other sessions were signed out. If this was not you, contact support.${SIGN.en}`,
        },

  accountDeleted: (to: string, lang: MailLanguage): OutgoingMail =>
    lang === 'es'
      ? {
          to,
          subject: 'Tu cuenta de BYTX ha sido eliminada',
          text: `Tu cuenta y todos sus datos se han eliminado.${SIGN.es}`,
        }
      : {
          to,
          subject: 'Your BYTX account was deleted',
          text: `Your account and all its data were deleted.${SIGN.en}`,
        },
};
