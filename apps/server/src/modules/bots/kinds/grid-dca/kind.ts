import { startBotDcaBody } from '@bytx/contract';
import { gridBotDca } from '@bytx/engine';
import { ceil2 } from '../backtest-budget';
import { backtestAdapter, type BotKindModule } from '../types';
import { createGridDcaState, gridDcaConfigOf, parseGridDcaStart } from './params';
import { gridDcaRoutes } from './routes';

/**
 * The backtest's default budget of a Grid Bot DCA, in (N + 1) × amount: the ladder keeps N waiting buys
 * below the price however far it falls, room for lots over a fall of about 4 × (N + 1) separations
 * (rejections for funds are counted in the summary).
 */
export const GRID_DCA_BUDGET_FACTOR = 5;

/** Grid Bot DCA (`/bot-dca`, spec part 2 §7). */
export const gridDcaKind: BotKindModule = {
  id: gridBotDca.kind,
  strategy: gridBotDca,
  routes: gridDcaRoutes,
  figures: {
    needsPrice: false,
    figures: (row, state, _price, now) => ({
      pnl: Number((state as { realizedPnl?: string }).realizedPnl ?? row.pnl) || 0,
      ttr: Math.round((now - row.startedAt.getTime()) / 1000),
    }),
  },
  backtest: backtestAdapter({
    kind: 'grid-dca',
    form: startBotDcaBody,
    symbolField: 'symbol',
    async plan(form, deps, botId) {
      const p = await parseGridDcaStart(form, deps);
      const config = gridDcaConfigOf(p);
      return {
        exchange: p.exchange,
        symbol: p.symbol,
        rules: config.market,
        config,
        initialState: createGridDcaState(botId, config),
        defaultBudget: ceil2(p.amount * (p.os + 1) * GRID_DCA_BUDGET_FACTOR * 1.01),
        priceStep: p.market.priceStep,
      };
    },
  }),
};
