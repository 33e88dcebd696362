import { gridStartBody } from '@bytx/contract';
import { gridBot, gridSummary, type GridState } from '@bytx/engine';
import { ceil2 } from '../backtest-budget';
import { backtestAdapter, type BotKindModule } from '../types';
import { createGridState, parseGridStart } from './params';
import { gridRoutes } from './routes';

/** Grid Bot (`/grid-bot`, spec part 2 §7; issue 14 §3). */
export const gridKind: BotKindModule = {
  id: gridBot.kind,
  strategy: gridBot,
  routes: gridRoutes,
  figures: {
    needsPrice: false,
    figures: (row, state, _price, now) => {
      let pnl = Number(row.pnl) || 0;
      try {
        pnl = Number(gridSummary(state as GridState).pnlQuote) || 0;
      } catch {
        // A state that cannot be read shows the stored PnL.
      }
      return { pnl, ttr: Math.round((now - row.startedAt.getTime()) / 1000) };
    },
  },
  backtest: backtestAdapter({
    kind: 'grid',
    form: gridStartBody,
    // The grid's form names the symbol `pair`.
    symbolField: 'pair',
    async plan(form, deps, botId) {
      const p = await parseGridStart(form, deps);
      const slots = p.levels.length - 1;
      return {
        exchange: p.exchange,
        symbol: p.pair,
        rules: p.config.market,
        config: p.config,
        initialState: createGridState(botId, p.config),
        defaultBudget: ceil2(slots * p.amount * (1 + p.market.taker) * 1.01),
        priceStep: p.market.priceStep,
      };
    },
  }),
};
