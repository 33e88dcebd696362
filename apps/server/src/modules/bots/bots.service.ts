import type { BotEventView, ClosedBotView, MarketType } from '@bytx/contract';
import type { StopMode } from '@bytx/engine';
import type { AppContext, MarketHub, VenueRegistry } from '../../context';
import { BotAccess, type KindFigures } from './bot-access';
import { BotLifecycle } from './bot-lifecycle.service';
import { BotSettings } from './bot-settings.service';
import { BotViews } from './bot-views.service';
import type { BotRow, BotsRepository } from './bots.repository';
import type { ReadCache } from './read-cache';
import type { BotRunner } from './runner';
import { StartChecks } from './start-checks.service';
import { minCostOf, type DcaStartFields, type DcaStartParams, type StartParamDeps } from './start-params';

export { CONNECTION_CHANGED } from './bot-lifecycle.service';
export type { KindFigures } from './bot-access';
export { minCostOf };

/**
 * What every bot kind shares, by concern, each in its own service:
 * - `lifecycle` (bot-lifecycle.service.ts): launch, stop, resume, stops when a connection or the
 *   account goes away;
 * - `checks` (start-checks.service.ts): the start checks, the derivatives market and its leverage, the
 *   start cap, the 409 of a concurrent start, a pair's minimum cost;
 * - `settings` (bot-settings.service.ts): the stored leverage and market type;
 * - `views` (bot-views.service.ts): closed bots, a bot's event log, prices and PnL of the active bots.
 *
 * The routes call the service of their concern; the kind services (kinds/<kind>/) and manual trading
 * get this one object and call the methods below, each handing over to its service.
 */
export class BotsService {
  readonly lifecycle: BotLifecycle;
  readonly checks: StartChecks;
  readonly settings: BotSettings;
  readonly views: BotViews;
  private readonly access: BotAccess;

  constructor(ctx: AppContext, repo: BotsRepository, runner: BotRunner) {
    this.access = new BotAccess(ctx, repo);
    this.lifecycle = new BotLifecycle(this.access, runner);
    this.checks = new StartChecks(this.access);
    this.settings = new BotSettings(this.access);
    this.views = new BotViews(this.access, runner);
  }

  /** Each kind's figures, by `bots.kind` (each kind registers its own). */
  get kinds(): Map<string, KindFigures> {
    return this.access.kinds;
  }
  /** The read cache of the polled lists (the repository's: its writes invalidate it). */
  get reads(): ReadCache {
    return this.access.reads;
  }
  /** The market hub; through the read cache's, so the prices a cached answer read are noted. */
  get market(): MarketHub {
    return this.access.market;
  }
  get venues(): VenueRegistry {
    return this.access.venues;
  }
  listed(exchange: string, symbol: string): Promise<string> {
    return this.access.listed(exchange, symbol);
  }
  ownBot(userId: string, botId: string): Promise<BotRow> {
    return this.access.ownBot(userId, botId);
  }

  // Lifecycle
  launch(id: string, startFailed?: string): Promise<BotRow | null> {
    return this.lifecycle.launch(id, startFailed);
  }
  failStart(botId: string, reason: string): Promise<void> {
    return this.lifecycle.failStart(botId, reason);
  }
  stop(row: BotRow, mode: StopMode): Promise<void> {
    return this.lifecycle.stop(row, mode);
  }
  resume(userId: string): ReturnType<BotLifecycle['resume']> {
    return this.lifecycle.resume(userId);
  }
  stopForConnection(userId: string, exchange: string): Promise<void> {
    return this.lifecycle.stopForConnection(userId, exchange);
  }
  stopAllForUser(userId: string): Promise<void> {
    return this.lifecycle.stopAllForUser(userId);
  }

  // Start checks
  paramDeps(userId: string): StartParamDeps {
    return this.checks.paramDeps(userId);
  }
  checkStart(userId: string, body: DcaStartFields, kind: string, alreadyActive: string) {
    return this.checks.checkStart(userId, body, kind, alreadyActive);
  }
  checkAccount(userId: string, p: DcaStartParams, kind: string, alreadyActive: string): Promise<void> {
    return this.checks.checkAccount(userId, p, kind, alreadyActive);
  }
  priceOf(exchange: string, marketSymbol: string, pair: string): Promise<number> {
    return this.checks.priceOf(exchange, marketSymbol, pair);
  }
  derivativesMarket(
    ...a: Parameters<StartChecks['derivativesMarket']>
  ): ReturnType<StartChecks['derivativesMarket']> {
    return this.checks.derivativesMarket(...a);
  }
  checkMargin(...a: Parameters<StartChecks['checkMargin']>): Promise<void> {
    return this.checks.checkMargin(...a);
  }
  applyLeverage(
    userId: string,
    exchange: string,
    type: MarketType,
    marketSymbol: string,
    leverage: number,
  ): Promise<void> {
    return this.checks.applyLeverage(userId, exchange, type, marketSymbol, leverage);
  }
  checkOneDerivativesBot(userId: string, exchange: string, pair: string, type: MarketType): Promise<void> {
    return this.checks.checkOneDerivativesBot(userId, exchange, pair, type);
  }
  oneBotMessage(exchange: string, symbol: string, type: string): string {
    return this.checks.oneBotMessage(exchange, symbol, type);
  }
  uniqueViolation(
    err: unknown,
    exchange: string,
    symbol: string,
    type: string,
    fallback: string,
  ): Error | null {
    return this.checks.uniqueViolation(err, exchange, symbol, type, fallback);
  }
  startCap(): ReturnType<StartChecks['startCap']> {
    return this.checks.startCap();
  }
  minCost(exchange: string, symbol: string): ReturnType<StartChecks['minCost']> {
    return this.checks.minCost(exchange, symbol);
  }

  // Settings
  setLeverage(...a: Parameters<BotSettings['setLeverage']>): ReturnType<BotSettings['setLeverage']> {
    return this.settings.setLeverage(...a);
  }
  leverage(
    userId: string,
    exchange: string,
    symbol: string | undefined,
  ): ReturnType<BotSettings['leverage']> {
    return this.settings.leverage(userId, exchange, symbol);
  }
  setApartado(userId: string, apartado: string): ReturnType<BotSettings['setApartado']> {
    return this.settings.setApartado(userId, apartado);
  }
  apartado(userId: string): Promise<string> {
    return this.settings.apartado(userId);
  }

  // Views
  closed(userId: string, kind: string): Promise<ClosedBotView[]> {
    return this.views.closed(userId, kind);
  }
  events(userId: string, botId: string, limit: number): Promise<BotEventView[]> {
    return this.views.events(userId, botId, limit);
  }
  prices(userId: string): ReturnType<BotViews['prices']> {
    return this.views.prices(userId);
  }
  pnls(userId: string, bots?: { symbol: string; exchange: string }[]): ReturnType<BotViews['pnls']> {
    return this.views.pnls(userId, bots);
  }
}
