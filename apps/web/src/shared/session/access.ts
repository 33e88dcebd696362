import type { SessionUser } from './session';

/** The support account (spec part 1 §2): opens /spot, /futuros and /wallet. */
export const isSupport = (user: SessionUser | null | undefined) => user?.isSupport === true;
/** Spot and Futures: the support accounts, or everyone when the operator set TRADING_SCREENS=all. */
export const canTrade = (user: SessionUser | null | undefined) => user?.canTrade === true || isSupport(user);
