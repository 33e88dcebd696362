/**
 * The Arbitrage bot (issue 15 §1) as a pure, deterministic state machine: one spot symbol on two
 * venues (the bot's own exchange and one more, followed through `extraMarkets`), decided on both
 * order books (`bookDepth` levels per side, brought by every tick).
 *
 * - Start: the capital (amountQuote) is split between the venues; on each venue half of its share is
 *   bought as base at market (`arb_prepare`), the other half stays quote. Trading starts once both
 *   prepare orders filled.
 * - Decision (`arbDecision`, pure): for each direction (buy on X, sell on Y) the trade size is walked
 *   through X's asks and Y's bids (VWAP); it trades when sellAvg / buyAvg − 1 > takerX + takerY + margin
 *   and the bot's inventory (base on Y, quote on X) covers it above both venues' minimums.
 * - A round trip sends both market legs in one step (the runner sends them concurrently); when both
 *   settled the matched part is one trade (buyExchange X, sellExchange Y, real average fills); what one
 *   leg filled beyond the other is reversed at market on its venue (`arb_unwind`) and recorded as its
 *   own trade (buyExchange = sellExchange = that venue), a loss shown as it is.
 * See docs/bots/arbitrage.md for every decision.
 */
import type { StepResult, Strategy, StrategyEvent } from '../strategy';
import { validFill } from '../shared/checks';
import { beginStep, endStep } from '../shared/context';
import { dispatchEvent, eventHandlers, refuseEvent } from '../shared/dispatch';
import { userStop } from '../shared/stopping';
import type { ArbitrageConfig, ArbitrageState } from './types';
import { ARB_BOOK_DEPTH, createArbitrageBot } from './config';
import { type Cx, OK } from './context';
import { onOrderEvent } from './order-events';
import { beginStop } from './stopping';
import { onTick } from './trips';

// The public API of this kind (packages/engine/src/index.ts exports this file).
export {
  ARB_BOOK_DEPTH,
  ARB_DEFAULT_MARGIN_PCT,
  ARB_DEFAULT_TRADE_FRACTION,
  ARB_DEFAULT_COOLDOWN_MS,
  ARB_FAIL_PAUSE_MS,
  ARB_FAIL_PAUSE_MAX_MS,
  ARB_BOOK_MAX_AGE_MS,
  ARB_MAX_CLOSE_ATTEMPTS,
  ARB_MAX_UNWIND_ATTEMPTS,
  ArbitrageConfigError,
  validateArbitrageConfig,
  createArbitrageBot,
  arbitrageInventory,
  arbitrageSummary,
} from './config';
export { walkBook, arbDecision } from './decision';

// ---------------------------------------------------------------------------------------------------
// The step function

/** Applies one event. Never mutates `state`; the same state and event always give the same result. */
export function stepArbitrage(state: ArbitrageState, event: StrategyEvent): StepResult<ArbitrageState> {
  const cx = beginStep(state, event);
  if (cx.s.status !== 'stopped') dispatchEvent(cx, event, HANDLERS);
  return endStep(cx);
}

/** Arbitrage takes no action, DCA setting nor liquidation (it trades spot): those log invalid_value. */
const HANDLERS = eventHandlers<Cx, void>({
  tick: (cx, e) => onTick(cx, e.price, e.exchange, e.symbol, e.book),
  filled: (cx, id, amount, price, fee) =>
    onOrderEvent(cx, id, (o) => {
      if (!validFill(amount, price, fee)) return null;
      o.filled = amount;
      o.avgPrice = price;
      o.fee = fee;
      o.done = true;
      return OK;
    }),
  partial: (cx, id, filled, price, fee) =>
    onOrderEvent(cx, id, (o) => {
      if (!validFill(filled, price, fee) || filled < o.filled) return null;
      o.filled = filled;
      o.avgPrice = price;
      o.fee = fee;
      return OK;
    }),
  cancelled: (cx, id, filled, price, fee) =>
    onOrderEvent(cx, id, (o) => {
      if (filled !== undefined && validFill(filled, price ?? 0, fee ?? 0) && filled >= o.filled) {
        o.filled = filled;
        o.avgPrice = price ?? o.avgPrice;
        o.fee = fee ?? o.fee;
      }
      o.done = true;
      return o.filled > 0 ? OK : { why: 'cancelled' };
    }),
  rejected: (cx, id, reason, message) =>
    onOrderEvent(cx, id, (o) => {
      o.done = true;
      return { why: reason, message };
    }),
  stop: (cx, mode) => userStop(cx, mode, beginStop),
  other: refuseEvent,
});

// ---------------------------------------------------------------------------------------------------
// The Strategy

/**
 * Whether `a` and `b` differ only in what ticks bring (prices, books, the live spread, the time): a
 * tick without a decision is not written; the page reads the runner's in-memory state for the spread.
 */
export function samePersistedArbitrage(a: ArbitrageState, b: ArbitrageState): boolean {
  return (
    a.status === b.status &&
    a.seq === b.seq &&
    a.venues === b.venues &&
    a.trip === b.trip &&
    a.trips === b.trips &&
    a.tripsOpened === b.tripsOpened &&
    a.lastTripEndTs === b.lastTripEndTs &&
    a.failStreak === b.failStreak &&
    a.pausedUntil === b.pausedUntil &&
    a.realizedPnl === b.realizedPnl &&
    a.waiting === b.waiting &&
    a.stopMode === b.stopMode &&
    a.stopReason === b.stopReason &&
    a.config === b.config
  );
}

/** The Arbitrage bot as a `Strategy` (bots.kind 'arbitrage'). */
export const arbitrageBot: Strategy<ArbitrageState, ArbitrageConfig> = {
  kind: 'arbitrage',
  create: createArbitrageBot,
  step: stepArbitrage,
  samePersisted: samePersistedArbitrage,
  realizedPnl: (s) => s.realizedPnl,
  extraMarkets: (s) => [{ exchange: s.config.exchanges[1], symbol: s.config.symbol }],
  bookDepth: () => ARB_BOOK_DEPTH,
};
