import type { StepResult, Strategy, StrategyCommand, StrategyEvent } from '@bytx/engine';

export const OWN = { exchange: 'binance', symbol: 'BTC/USDT' };
export const OTHER = { exchange: 'bybit', symbol: 'BTC/USDT' };

/**
 * A kind the runner has never heard of, registered only here: it follows a second market (as
 * arbitrage will) and sends its order there, and takes a kind-specific action. It proves that a kind
 * plugs into the runner without the runner knowing it, with the runner's guarantees on the other
 * exchange too (journal with the exchange, reconcile on that venue, unknown orders swept there).
 */
export interface TwoMarketState {
  botId: string;
  seq: number;
  /** Every tick seen, as exchange|symbol|price. */
  ticks: string[];
  order: string | null;
  settled: string[];
  notes: string[];
  stopped: boolean;
}

export const twoMarkets: Strategy<TwoMarketState, null> = {
  kind: 'two_markets_test',
  create: (botId) => ({ botId, seq: 1, ticks: [], order: null, settled: [], notes: [], stopped: false }),
  step(state, event: StrategyEvent): StepResult<TwoMarketState> {
    const s = { ...state, ticks: [...state.ticks], settled: [...state.settled], notes: [...state.notes] };
    const commands: StrategyCommand[] = [];
    switch (event.type) {
      case 'tick': {
        const ex = event.exchange ?? OWN.exchange;
        s.ticks.push(`${ex}|${event.symbol ?? OWN.symbol}|${event.price}`);
        if (ex === OTHER.exchange && s.order === null) {
          s.order = `${s.botId}-${s.seq++}`;
          // A buy resting far below the price, on the OTHER exchange.
          commands.push({
            type: 'place_order',
            clientOrderId: s.order,
            side: 'buy',
            orderType: 'limit',
            price: Math.floor(event.price * 0.5),
            amount: 0.001,
            role: 'entry',
            exchange: OTHER.exchange,
            symbol: OTHER.symbol,
          });
        }
        break;
      }
      case 'order_cancelled':
      case 'order_filled':
        s.settled.push(`${event.type}:${event.clientOrderId}`);
        break;
      case 'action':
        s.notes.push(`${event.name}:${JSON.stringify(event.params)}`);
        break;
      case 'stop':
        s.stopped = true;
        commands.push({ type: 'stopped', reason: 'user_cancel_only' });
        break;
      case 'order_partially_filled':
      case 'order_rejected':
      case 'relocate':
      case 'set_ra':
      case 'set_sl':
      case 'set_tp_plus':
      case 'liquidated':
        break;
    }
    return { state: s, commands };
  },
  samePersisted: (a, b) => a.seq === b.seq && a.ticks.length === b.ticks.length,
  realizedPnl: () => '0',
  extraMarkets: () => [OTHER],
};
