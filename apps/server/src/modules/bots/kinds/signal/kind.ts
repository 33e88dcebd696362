import { signalBot, signalSummary, type SignalState } from '@bytx/engine';
import type { BotKindModule } from '../types';
import { signalRoutes } from './routes';

/** Signal bot (`/signalbot`, issue 15 §2): no backtest (its orders come from outside signals). */
export const signalKind: BotKindModule = {
  id: signalBot.kind,
  strategy: signalBot,
  routes: signalRoutes,
  figures: {
    // It holds a position: its unrealized PnL at the current price is shown too.
    needsPrice: true,
    figures: (row, state, price, now) => {
      let pnl = Number(row.pnl) || 0;
      try {
        const s = signalSummary(state as SignalState);
        pnl = Number(s.pnlQuote) || 0;
        if (price !== null && s.qty > 0) pnl += s.qty * price - s.qty * s.avgEntry;
      } catch {
        // A state that cannot be read shows the stored PnL.
      }
      return { pnl, ttr: Math.round((now - row.startedAt.getTime()) / 1000) };
    },
  },
};
