import { hash, verify, type Algorithm } from '@node-rs/argon2';
import { PASSWORD_MAX, PASSWORD_MIN } from '@bytx/contract';
import { badRequest } from '../../lib/errors';
import { isCommonPassword } from './common-passwords';

/** argon2id with OWASP's minimum: 19 MiB memory, 2 iterations, 1 lane. */
export const ARGON2_OPTIONS = {
  // Algorithm.Argon2id (a const enum, which isolated modules cannot read).
  algorithm: 2 as Algorithm,
  memoryCost: 19456,
  timeCost: 2,
  parallelism: 1,
} as const;

export const hashPassword = (password: string) => hash(password, ARGON2_OPTIONS);

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

/** The password rules (docs/accounts.md); throws a 400 with a message the user can act on. */
export function assertPasswordAllowed(password: string): void {
  if (password.length < PASSWORD_MIN || password.length > PASSWORD_MAX) {
    throw badRequest(`The password must be ${PASSWORD_MIN} to ${PASSWORD_MAX} characters long.`);
  }
  if (password.trim().length === 0) throw badRequest('The password cannot be only spaces.');
  if (isCommonPassword(password)) {
    throw badRequest('This password is too common and easy to guess. Please choose another one.');
  }
}
