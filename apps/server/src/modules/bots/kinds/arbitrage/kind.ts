import { arbitrageBot, arbitrageSummary, type ArbitrageState } from '@bytx/engine';
import type { BotKindModule } from '../types';
import { arbitrageRoutes } from './routes';

/** Arbitrage bot (`/arbitraje`, spec part 2 §7; issue 15 §1): no backtest (two exchanges' books). */
export const arbitrageKind: BotKindModule = {
  id: arbitrageBot.kind,
  strategy: arbitrageBot,
  routes: arbitrageRoutes,
  figures: {
    needsPrice: false,
    figures: (row, state, _price, now) => {
      let pnl = Number(row.pnl) || 0;
      try {
        pnl = Number(arbitrageSummary(state as ArbitrageState).pnlQuote) || 0;
      } catch {
        // A state that cannot be read shows the stored PnL.
      }
      return { pnl, ttr: Math.round((now - row.startedAt.getTime()) / 1000) };
    },
  },
};
