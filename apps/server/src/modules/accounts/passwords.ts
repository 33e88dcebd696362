import { hash, verify, type Algorithm } from '@node-rs/argon2';
import { PASSWORD_MAX, PASSWORD_MIN } from '@bytx/contract';
import { badRequest } from '../../lib/errors';
import { isCommonPassword } from './common-passwords';

/**
 * argon2id with 7 MiB of memory, 5 iterations and 1 lane: the last of the five configurations OWASP's
 * Password Storage Cheat Sheet lists as "an equal level of defense" (19 MiB with 2 iterations is
 * another; they trade RAM for CPU). Why the small-memory one: the argon2 module maps each check's
 * block afresh in huge pages, and under load the kernel sometimes took 25–50 ms to provide 19 MiB of
 * them (docs/performance.md, "The login's password check under a flood").
 */
export const ARGON2_OPTIONS = {
  // Algorithm.Argon2id (a const enum, which isolated modules cannot read).
  algorithm: 2 as Algorithm,
  memoryCost: 7168,
  timeCost: 5,
  parallelism: 1,
} as const;

export const hashPassword = (password: string) => hash(password, ARGON2_OPTIONS);

const PHC = /^\$argon2id\$v=19\$m=(\d+),t=(\d+),p=(\d+)\$/;

/** True when a stored hash was made with other parameters than ARGON2_OPTIONS (an older default). */
export function needsRehash(passwordHash: string): boolean {
  const m = PHC.exec(passwordHash);
  return (
    !m ||
    Number(m[1]) !== ARGON2_OPTIONS.memoryCost ||
    Number(m[2]) !== ARGON2_OPTIONS.timeCost ||
    Number(m[3]) !== ARGON2_OPTIONS.parallelism
  );
}

export async function verifyPassword(passwordHash: string, password: string): Promise<boolean> {
  try {
    return await verify(passwordHash, password);
  } catch {
    return false;
  }
}

let dummyHash: Promise<string> | undefined;
/** Spends the time of a real check when the email is unknown, so timing does not reveal accounts. */
export async function burnPasswordCheck(password: string): Promise<void> {
  dummyHash ??= hashPassword('no-such-user-placeholder');
  await verifyPassword(await dummyHash, password);
}

export const PASSWORD_IS_EMAIL_MESSAGE =
  'The password cannot be your email address or the part of it before the @. Please choose another one.';

/**
 * The password rules (docs/accounts.md); throws a 400 with a message the user can act on. `email` (the
 * account's) refuses the address itself and its local part, compared case-insensitively after trimming.
 */
export function assertPasswordAllowed(password: string, email?: string): void {
  if (password.length < PASSWORD_MIN || password.length > PASSWORD_MAX) {
    throw badRequest(`The password must be ${PASSWORD_MIN} to ${PASSWORD_MAX} characters long.`, {
      error_code: 'password_length',
    });
  }
  if (password.trim().length === 0) {
    throw badRequest('The password cannot be only spaces.', { error_code: 'password_spaces' });
  }
  if (isCommonPassword(password)) {
    throw badRequest('This password is too common and easy to guess. Please choose another one.', {
      error_code: 'password_common',
    });
  }
  if (email !== undefined) {
    const address = email.trim().toLowerCase();
    const local = address.split('@')[0] ?? '';
    const candidate = password.trim().toLowerCase();
    if (candidate === address || (local.length > 0 && candidate === local)) {
      throw badRequest(PASSWORD_IS_EMAIL_MESSAGE, { error_code: 'password_email' });
    }
  }
}
