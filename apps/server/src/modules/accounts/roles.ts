import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../../config';
import { forbidden } from '../../lib/errors';
import { currentUser } from '../../plugins/auth';

type RoleConfig = Pick<Config, 'SUPPORT_EMAILS' | 'LOGO_ALLOWLIST_EMAILS'>;
type TradingConfig = Pick<Config, 'SUPPORT_EMAILS' | 'TRADING_SCREENS'>;

/** The spec's support account(s): they alone open Spot, Futures and Wallet from the header. */
export const isSupportEmail = (config: RoleConfig, email: string) =>
  config.SUPPORT_EMAILS.includes(email.trim().toLowerCase());

/** Who opens the Spot and Futures screens: the support accounts, or everyone with TRADING_SCREENS=all. */
export const canTrade = (config: TradingConfig, email: string) =>
  config.TRADING_SCREENS === 'all' || config.SUPPORT_EMAILS.includes(email.trim().toLowerCase());

/** The logo allow-list: they alone may open /peliculas-series. */
export const canOpenLogoArea = (config: RoleConfig, email: string) =>
  config.LOGO_ALLOWLIST_EMAILS.includes(email.trim().toLowerCase());

export const SUPPORT_ONLY_MESSAGE = 'Platform in Development';
export const LOGO_DENIED_MESSAGE = 'Acceso denegado. Solo usuarios autorizados.';

/**
 * preHandler for support-only routes; put it after `app.authenticate`:
 * `preHandler: [app.authenticate, requireSupport(ctx.config)]`. 403 'Platform in Development' otherwise.
 */
export function requireSupport(config: RoleConfig) {
  return async (request: FastifyRequest, _reply: FastifyReply): Promise<void> => {
    if (!isSupportEmail(config, currentUser(request).email)) throw forbidden(SUPPORT_ONLY_MESSAGE);
  };
}

/** preHandler for the trading calls (`/api/spot/*`, `/api/futures/*`): 403 'Platform in Development'. */
export function requireTrading(config: TradingConfig) {
  return async (request: FastifyRequest, _reply: FastifyReply): Promise<void> => {
    if (!canTrade(config, currentUser(request).email)) throw forbidden(SUPPORT_ONLY_MESSAGE);
  };
}

/** preHandler for the logo area (after `app.authenticate`): 403 with the spec's text otherwise. */
export function requireLogoAllowlist(config: RoleConfig) {
  return async (request: FastifyRequest, _reply: FastifyReply): Promise<void> => {
    if (!canOpenLogoArea(config, currentUser(request).email)) throw forbidden(LOGO_DENIED_MESSAGE);
  };
}
