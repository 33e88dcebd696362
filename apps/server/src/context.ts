import type { Candle, Market, MarketSimulator, OrderBook, Ticker, Timeframe, Venue } from '@bytx/venues';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from './config';
import type { Database, Db } from './db/client';
import type { SecretBox } from './lib/crypto';

/**
 * What every module is built from. Modules construct their repositories and services from it;
 * long-lived services register `onClose` hooks for their own shutdown.
 */
export interface AppContext {
  config: Config;
  database: Database;
  db: Db;
  secretBox: SecretBox;
  log: FastifyBaseLogger;
  /** Services one module provides to others, set by the owning module when it registers. */
  services: Partial<AppServices>;
  hooks: AppHooks;
}

export interface AppHooks {
  /**
   * Run inside account deletion before the user's rows go (bots stop first: orders cancelled on the
   * venue). Each hook gets the user's id; a throwing hook aborts the deletion.
   */
  beforeUserDelete: ((userId: string) => Promise<void>)[];
  /**
   * Run before a user's connection to an exchange is removed or replaced (its venue is closed):
   * the bot module stops the bots trading on it. A throwing hook aborts the removal.
   */
  beforeConnectionChange: ((userId: string, exchange: string) => Promise<void>)[];
  /**
   * Run after a live key was checked again (daily, on resume; modules/exchanges/key-recheck.ts): the bot
   * module pauses the bots on a key that was revoked or gained withdrawal rights, and resumes them when a
   * later check finds it good (`problem` null).
   */
  afterKeyCheck?: ((
    userId: string,
    exchange: string,
    problem: 'revoked' | 'can_withdraw' | null,
  ) => Promise<void>)[];
}

/**
 * Market data shared by every user and bot (DESIGN.md principle 6): one upstream fetch per
 * (exchange, symbol), cached. Owned by modules/market.
 */
export interface MarketHub {
  markets(exchange: string): Promise<Record<string, Market>>;
  market(exchange: string, symbol: string): Promise<Market | null>;
  /** The exchange's own symbol for exactly this string (ASCII-trimmed), if listed and active; else null. */
  listedSymbol(exchange: string, symbol: string): Promise<string | null>;
  ticker(exchange: string, symbol: string): Promise<Ticker>;
  orderBook(exchange: string, symbol: string, limit?: number): Promise<OrderBook>;
  candles(exchange: string, symbol: string, timeframe: Timeframe, limit?: number): Promise<Candle[]>;
  /** Forget the cached market list of an exchange (a listing may have changed). */
  invalidateMarkets?(exchange: string): void;
  /** Listing changes (the simulator's delist control). Returns unsubscribe. */
  onListing?(listener: (e: { exchange: string; symbol: string; listed: boolean }) => void): () => void;
  /** Price updates of one pair; the hub watches upstream once however many listen. Returns unsubscribe. */
  subscribe(exchange: string, symbol: string, listener: (ticker: Ticker) => void): () => void;
}

/** Users' exchange connections as Venues. Owned by modules/exchanges. */
export interface VenueRegistry {
  /** The user's venue on that exchange; throws an HttpError (400) when not connected. */
  forUser(userId: string, exchange: string): Promise<Venue>;
  /** 'paper', 'live', or null when the user has no connection to that exchange. */
  connectionKind(userId: string, exchange: string): Promise<'paper' | 'live' | null>;
}

export interface AppServices {
  market: MarketHub;
  /** The simulated market (MARKET_DATA=simulated only). Owned by modules/market. */
  simulator: MarketSimulator;
  venues: VenueRegistry;
  /** Re-checks a user's live keys (on resume). Owned by modules/exchanges. */
  keys: { checkUser(userId: string): Promise<void> };
}
