import { generateSecret, generateURI, verifySync } from 'otplib';
import QRCode from 'qrcode';
import type { AppContext } from '../../context';
import { tableCache, type TableCache } from '../../db/table-cache';
import { sealContext } from '../../lib/crypto';
import { badRequest, conflict, tooManyRequests } from '../../lib/errors';
import { TotpRepository, type TotpRow } from './totp.repository';

/** RFC 6238 as Google Authenticator uses it: SHA-1, 6 digits, 30 s steps, one step of drift. */
export const TOTP_PERIOD_S = 30;
export const TOTP_TOLERANCE_S = 30;
export const TOTP_MAX_FAILURES = 5;
export const TOTP_LOCK_MS = 15 * 60 * 1000;
export const TOTP_ISSUER = 'BYTX';

export const INVALID_2FA_MESSAGE = 'Invalid 2FA code. Please try again.';
export const REPLAY_MESSAGE = 'This 2FA code was already used. Wait for the next code and try again.';

/**
 * Two-factor checks shared by login, the settings switch, password change and disabling:
 * a code is accepted once (the last used step is stored), 5 wrong codes lock every 2FA check of
 * the account for 15 minutes, and secrets are sealed at rest.
 */
export class TwoFactorService {
  readonly repo: TotpRepository;
  /**
   * The flag as GET /api/check_2fa shows it, kept until the next write to user_totp (or a user's
   * deletion) by anyone (db/table-cache.ts): its read was the whole cost of the call.
   */
  private readonly shown: TableCache<boolean>;

  constructor(private readonly ctx: AppContext) {
    this.repo = new TotpRepository(ctx.db);
    this.shown = tableCache(ctx, /\buser_totp\b|\bdelete\s+from\s+"?users\b/i);
  }

  /** From the database: login, password change and disabling decide on it. */
  async isEnabled(userId: string): Promise<boolean> {
    return this.repo.isEnabled(userId);
  }

  /** For showing it (GET /api/check_2fa): exact, through the table cache. */
  async isEnabledShown(userId: string): Promise<boolean> {
    return this.shown.get(userId, () => this.repo.isEnabled(userId));
  }

  /** A fresh secret for the settings screen; it is kept pending until a code confirms it. */
  async generate(userId: string, email: string) {
    const row = await this.repo.get(userId);
    if (row?.enabled) throw conflict('Two-factor authentication is already enabled. Disable it first.');
    const secret = generateSecret();
    const otpauthUrl = generateURI({ issuer: TOTP_ISSUER, label: email, secret });
    const qr = await QRCode.toDataURL(otpauthUrl, { type: 'image/png', margin: 1, width: 220 });
    await this.repo.upsert(userId, {
      pendingSecretEnc: this.ctx.secretBox.seal(secret, sealContext.totp(userId)),
    });
    return { qr, secret, otpauthUrl };
  }

  /** Confirms the pending secret with a code and turns 2FA on. */
  async enable(userId: string, code: string): Promise<void> {
    const row = await this.repo.get(userId);
    if (row?.enabled) throw conflict('Two-factor authentication is already enabled.');
    if (!row?.pendingSecretEnc) {
      throw badRequest('Generate a QR code first (no two-factor setup is in progress).');
    }
    const step = await this.check(
      row,
      this.ctx.secretBox.open(row.pendingSecretEnc, sealContext.totp(userId)),
      code,
    );
    const claimed = await this.repo.claimStep(userId, step, {
      enabled: true,
      secretEnc: row.pendingSecretEnc,
      pendingSecretEnc: null,
    });
    if (!claimed) throw badRequest(REPLAY_MESSAGE);
  }

  /** Checks a code against the enabled secret (login, password change, disable). */
  async verifyEnabled(userId: string, code: string): Promise<void> {
    const row = await this.repo.get(userId);
    if (!row?.enabled || !row.secretEnc) throw badRequest('Two-factor authentication is not enabled.');
    const step = await this.check(
      row,
      this.ctx.secretBox.open(row.secretEnc, sealContext.totp(userId)),
      code,
    );
    if (!(await this.repo.claimStep(userId, step))) throw badRequest(REPLAY_MESSAGE);
  }

  async disable(userId: string, code: string): Promise<void> {
    await this.verifyEnabled(userId, code);
    await this.turnOff(userId);
  }

  /** Turns 2FA off with no code of its own: the caller checked one (a reauth with a code). */
  async turnOff(userId: string): Promise<void> {
    await this.repo.upsert(userId, {
      enabled: false,
      secretEnc: null,
      pendingSecretEnc: null,
      failedAttempts: 0,
      lockedUntil: null,
    });
  }

  /**
   * Returns the accepted time step, or throws. The check is counted before the code is compared, in
   * one atomic UPDATE … RETURNING (TotpRepository.reserveCheck): the 5th check in a row without an
   * accepted code locks every 2FA check of the account for 15 minutes, however many arrive in parallel.
   */
  private async check(row: TotpRow, secret: string, code: string, now = new Date()): Promise<number> {
    const reserved = await this.repo.reserveCheck(row.userId, TOTP_MAX_FAILURES, TOTP_LOCK_MS, now);
    if (!reserved) {
      const current = await this.repo.get(row.userId);
      const until = current?.lockedUntil?.getTime() ?? now.getTime() + TOTP_LOCK_MS;
      const minutes = Math.max(1, Math.ceil((until - now.getTime()) / 60000));
      throw tooManyRequests(
        `Too many wrong 2FA codes. Two-factor checks are locked for ${minutes} more minute${minutes === 1 ? '' : 's'}.`,
      );
    }
    let step: number | null = null;
    try {
      const result = verifySync({
        secret,
        token: code,
        epoch: Math.floor(now.getTime() / 1000),
        period: TOTP_PERIOD_S,
        epochTolerance: TOTP_TOLERANCE_S,
      });
      if (result.valid && 'timeStep' in result) step = result.timeStep;
    } catch {
      step = null;
    }
    // A replayed code stays counted as a failed check (it is not a valid code any more).
    const replay = step !== null && row.lastUsedStep !== null && step <= row.lastUsedStep;
    if (step === null || replay) {
      this.ctx.log.warn(
        { event: 'account.2fa_failed', userId: row.userId, locked: reserved.locked, replay },
        '2FA code refused',
      );
      if (reserved.locked) {
        throw tooManyRequests('Too many wrong 2FA codes. Two-factor checks are locked for 15 minutes.');
      }
      throw badRequest(replay ? REPLAY_MESSAGE : INVALID_2FA_MESSAGE);
    }
    return step;
  }
}
