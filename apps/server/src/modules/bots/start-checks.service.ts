import {
  DCA_MESSAGES,
  DERIVATIVES_MESSAGES,
  EXCHANGE_KEYS,
  exchangeDisplayName,
  fillMessage,
  LIMITS,
  type MarketType,
} from '@bytx/contract';
import { VenueError } from '@bytx/venues';
import type { AppContext } from '../../context';
import { badRequest, conflict } from '../../lib/errors';
import type { BotAccess } from './bot-access';
import type { BotsRepository } from './bots.repository';
import { assertLiveSupports } from './capability-check';
import { derivativesOf, isDerivatives, settleOf, venueSymbol, type DerivativesMarket } from './derivatives';
import {
  parseDcaStart,
  priceOf,
  type DcaStartFields,
  type DcaStartParams,
  type StartParamDeps,
} from './start-params';

const round = (x: number, d = 8) => Math.round(x * 10 ** d) / 10 ** d;

/**
 * The start checks every kind shares (spec part 2 §5), in the spec's order with its messages: the
 * form's (start-params.ts), the account's (one bot of a kind per pair, one derivatives bot per market,
 * MAX_BOTS_PER_USER, the margin), the derivatives market and its leverage set on the exchange, the
 * start cap of the insert and the 409 of a concurrent start; and the minimum cost of a pair the forms
 * show.
 */
export class StartChecks {
  private readonly ctx: AppContext;
  private readonly repo: BotsRepository;

  constructor(private readonly access: BotAccess) {
    this.ctx = access.ctx;
    this.repo = access.repo;
  }

  /**
   * What the start-form parsers need (start-params.ts) for this user: the connection checked where the
   * spec checks it, the saved market type, the derivatives market with the user's leverage.
   */
  paramDeps(userId: string): StartParamDeps {
    return {
      market: this.access.market,
      connection: (exchange) => this.access.venues.connectionKind(userId, exchange),
      savedApartado: async () => (await this.repo.settings(userId)).apartado,
      derivativesMarket: (exchange, pair, type, leverage) =>
        this.derivativesMarket(userId, exchange, pair, type, leverage),
    };
  }

  /**
   * The start checks every kind shares, in the spec's order with its messages (part 2 §5): the form's
   * parameters (parseDcaStart: TP and separation, exchange selected and connected, pair listed, amount,
   * # OS, market type, the minimum cost at the current price), then the account's (checkAccount).
   */
  async checkStart(userId: string, body: DcaStartFields, kind: string, alreadyActive: string) {
    const parsed = await parseDcaStart(body, this.paramDeps(userId));
    await this.checkAccount(userId, parsed, kind, alreadyActive);
    return parsed;
  }

  /**
   * The account's start checks after the form's: one active bot of `kind` per pair, one derivatives bot
   * per market, MAX_BOTS_PER_USER, the margin; then the leverage is set on the exchange.
   */
  async checkAccount(userId: string, p: DcaStartParams, kind: string, alreadyActive: string): Promise<void> {
    const { exchange, symbol, apartado } = p;
    if (await this.repo.activeFor(userId, exchange, symbol, kind)) {
      throw conflict(fillMessage(alreadyActive, { exchange, symbol }));
    }
    await this.checkOneDerivativesBot(userId, exchange, symbol, apartado);
    const max = this.ctx.config.MAX_BOTS_PER_USER;
    if ((await this.repo.countActive(userId, this.access.leftoverKinds())) >= max) {
      throw conflict(fillMessage(DCA_MESSAGES.tooManyBots, { max }));
    }
    await this.checkMargin(userId, exchange, apartado, p.market, p.leverage, p.amount, p.price);
    await this.applyLeverage(userId, exchange, apartado, p.marketSymbol, p.leverage);
  }

  /** The current price of the traded market (its own ticker, else the pair's: paper marks are the spot price). */
  async priceOf(exchange: string, marketSymbol: string, pair: string): Promise<number> {
    return priceOf(this.access.market, exchange, marketSymbol, pair);
  }

  /**
   * The derivatives market a bot of `type` trades for the pair, checked: listed on the exchange, the
   * leverage (the one sent, else the stored one, else 1) within its maximum, and the account able to
   * trade it — the leverage is set on the exchange now, so a venue without derivatives (or a live
   * exchange whose API lacks them) is refused with what it lacks before any bot exists.
   */
  async derivativesMarket(
    userId: string,
    exchange: string,
    pair: string,
    type: MarketType,
    leverageSent: number | undefined,
  ): Promise<{ market: DerivativesMarket; marketSymbol: string; leverage: number }> {
    // A live exchange that cannot trade this market type is named first (issue 38 point 8).
    await assertLiveSupports(this.ctx.services.venues, userId, exchange, type);
    // The venue trades inverse swaps (docs/venues.md), but a bot's lots are base amounts and an inverse
    // position is counted in 1-USD contracts: converting at each order's price would leave dust on every
    // reduce-only close, so bots refuse Inverse until the strategies size in contracts.
    if (type === 'Inverse') {
      throw badRequest(DERIVATIVES_MESSAGES.inverseBotsNotYet, { field: 'apartado' });
    }
    const marketSymbol = venueSymbol(pair, type);
    const m: DerivativesMarket | null = await this.access.market
      .market(exchange, marketSymbol)
      .catch(() => null);
    const noMarket = () =>
      badRequest(
        fillMessage(DERIVATIVES_MESSAGES.noMarket, { exchange: exchangeDisplayName(exchange), type, pair }),
        { field: 'apartado' },
      );
    if (!m || !m.active) throw noMarket();
    if (type === 'Margin' && m.margin !== true) throw noMarket();
    const leverage = leverageSent ?? (await this.repo.settings(userId, exchange, pair)).leverage ?? 1;
    const max = Math.min(m.maxLeverage ?? LIMITS.maxLeverage, LIMITS.maxLeverage);
    if (leverage > max) {
      throw badRequest(
        fillMessage(DERIVATIVES_MESSAGES.leverageAboveMarket, {
          leverage,
          symbol: marketSymbol,
          exchange,
          max,
        }),
        { field: 'leverage' },
      );
    }
    return { market: m, marketSymbol, leverage };
  }

  /**
   * A derivatives bot's first order needs `amount / leverage` of margin in the market's settle currency
   * (the base coin on an inverse swap): refused with the numbers when the wallet lacks it. When the
   * balance cannot be read the start proceeds (the venue refuses what it cannot fill).
   */
  async checkMargin(
    userId: string,
    exchange: string,
    type: MarketType,
    market: DerivativesMarket,
    leverage: number,
    amount: number,
    price: number,
  ): Promise<void> {
    if (!isDerivatives(type)) return;
    const quote = market.quote;
    const currency = settleOf(market, type);
    const margin = amount / leverage;
    const need = currency === quote || currency === 'USD' ? margin : margin / price;
    const swap = type === 'Perpetual' || type === 'Inverse';
    const venue = await this.access.venues.forUser(userId, exchange).catch(() => null);
    const balances = venue
      ? await derivativesOf(venue)
          .fetchBalance(swap ? { type: 'swap' } : undefined)
          .catch(() => null)
      : null;
    if (!balances) return;
    const free = balances[currency]?.free ?? 0;
    if (free + 1e-12 < need) {
      const d = currency === quote ? 2 : 8;
      throw badRequest(
        fillMessage(DERIVATIVES_MESSAGES.insufficientMargin, {
          need: Math.ceil(need * 10 ** d) / 10 ** d,
          currency,
          amount,
          quote,
          leverage,
          wallet: swap ? 'derivatives' : 'spot (margin)',
          free: Math.floor(free * 10 ** d) / 10 ** d,
        }),
        { field: 'amount' },
      );
    }
  }

  /**
   * Sets a derivatives bot's leverage on the exchange before the bot exists: a venue without
   * derivatives (or a live exchange whose API lacks them) is refused with what it lacks.
   */
  async applyLeverage(
    userId: string,
    exchange: string,
    type: MarketType,
    marketSymbol: string,
    leverage: number,
  ): Promise<void> {
    if (!isDerivatives(type)) return;
    const venue = derivativesOf(await this.access.venues.forUser(userId, exchange));
    const unsupported = (reason: string) =>
      badRequest(
        fillMessage(DERIVATIVES_MESSAGES.unsupported, {
          type,
          exchange: exchangeDisplayName(exchange),
          reason,
        }),
        { field: 'apartado' },
      );
    if (!venue.setLeverage) throw unsupported(`${exchange} does not support setLeverage through its API`);
    try {
      await venue.setLeverage(leverage, marketSymbol);
    } catch (err) {
      if (err instanceof VenueError && err.action === 'retry') throw err;
      throw unsupported(err instanceof Error ? err.message : String(err));
    }
  }

  /**
   * The exchange keeps one position per market: a second active derivatives bot of the account on the
   * same exchange symbol (whatever its kind) is refused. The partial unique index
   * bots_one_derivatives_per_market keeps two starts at once from both passing.
   */
  async checkOneDerivativesBot(userId: string, exchange: string, pair: string, type: MarketType) {
    if (!isDerivatives(type)) return;
    const target = venueSymbol(pair, type);
    const rows = await this.repo.listByUser(userId, 'active');
    const other = rows.find(
      (r) =>
        r.exchange === exchange &&
        isDerivatives(r.marketType) &&
        venueSymbol(r.symbol, r.marketType) === target &&
        !this.access.kinds.get(r.kind)?.leftover,
    );
    if (other) throw conflict(this.oneBotMessage(exchange, target, type));
  }

  oneBotMessage(exchange: string, symbol: string, type: string): string {
    return fillMessage(DERIVATIVES_MESSAGES.oneBotPerMarket, {
      exchange: exchangeDisplayName(exchange),
      symbol,
      type,
    });
  }

  /** A unique violation on insert: the derivatives index's own message, else `fallback` (same kind and pair). */
  uniqueViolation(
    err: unknown,
    exchange: string,
    symbol: string,
    type: string,
    fallback: string,
  ): Error | null {
    const e = err as { code?: string; constraint?: string; cause?: { code?: string; constraint?: string } };
    if (String(e.cause?.code ?? e.code) !== '23505') return null;
    const constraint = e.cause?.constraint ?? e.constraint ?? '';
    const text = `${constraint} ${String((e.cause as Error | undefined)?.message ?? (err as Error).message)}`;
    if (text.includes('bots_one_derivatives_per_market')) {
      return conflict(this.oneBotMessage(exchange, venueSymbol(symbol, type), type));
    }
    return conflict(fillMessage(fallback, { exchange, symbol }));
  }

  /** The cap a started bot's insert must respect (MAX_BOTS_PER_USER; a leftover kind is not counted). */
  startCap(): { max: number; except: string[]; full: () => Error } {
    const max = this.ctx.config.MAX_BOTS_PER_USER;
    return {
      max,
      except: this.access.leftoverKinds(),
      full: () => conflict(fillMessage(DCA_MESSAGES.tooManyBots, { max })),
    };
  }

  async minCost(exchange: string, symbol: string) {
    const ex = exchange.toLowerCase();
    if (!(EXCHANGE_KEYS as readonly string[]).includes(ex)) throw badRequest(`Unknown exchange: ${exchange}`);
    const sym = await this.access.listed(ex, symbol);
    const market = await this.access.market.market(ex, sym).catch(() => null);
    if (!market)
      throw badRequest(
        fillMessage(DCA_MESSAGES.pairNotAvailable, { exchange: exchangeDisplayName(exchange) }),
      );
    const t = await this.access.market.ticker(ex, sym);
    const price = t.last;
    const minCost = Math.max(market.minCost, market.minAmount * price);
    return {
      success: true,
      min_cost: round(minCost, 8),
      min_amount: round(price > 0 ? Math.max(market.minAmount, minCost / price) : market.minAmount, 10),
      price,
    };
  }
}
