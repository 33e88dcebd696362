import { CLASSIC_DCA_OPTIONS, startBotBody } from '@bytx/contract';
import {
  classicDca,
  classicVnc,
  summarizeClassicDca,
  type ClassicDcaState,
  type VncState,
} from '@bytx/engine';
import { ceil2 } from '../backtest-budget';
import { backtestAdapter, type BotKindModule } from '../types';
import { classicConfigOf, createClassicState, parseClassicStart } from './params';
import { classicDcaRoutes } from './routes';

/**
 * Classic DCA bot (`/dashboard`, the spot-bot screen; spec part 2 §7). What a stopped bot kept goes to
 * the pair's VNC, a bot of its own kind the runner runs, listed but not counted as a started bot.
 */
export const classicDcaKind: BotKindModule = {
  id: classicDca.kind,
  strategy: classicDca,
  routes: classicDcaRoutes,
  figures: {
    needsPrice: true,
    figures: (_row, state, price, now) => {
      const s = state as ClassicDcaState;
      const sum = summarizeClassicDca(s, price ?? s.lastPrice ?? 0);
      return {
        pnl: Math.round(sum.pnl * 1e8) / 1e8,
        ttr: sum.cycleStart === null ? 0 : Math.max(0, Math.round((now - sum.cycleStart) / 1000)),
      };
    },
  },
  leftovers: [
    {
      id: classicVnc.kind,
      strategy: classicVnc,
      figures: {
        needsPrice: false,
        figures: (row, state, _price, now) => ({
          pnl: Number((state as VncState).realizedPnl) || 0,
          ttr: Math.round((now - row.startedAt.getTime()) / 1000),
        }),
      },
    },
  ],
  backtest: backtestAdapter({
    kind: 'classic-dca',
    form: startBotBody,
    symbolField: 'symbol',
    async plan(form, deps, botId) {
      const p = await parseClassicStart(form, deps);
      const config = classicConfigOf(p);
      const smart = p.smartAveraging ? CLASSIC_DCA_OPTIONS.smartAmount * 10 : 0;
      return {
        exchange: p.exchange,
        symbol: p.symbol,
        rules: config.market,
        config,
        initialState: createClassicState(botId, config, []),
        defaultBudget: ceil2(p.amount * (p.os + 1) * 1.01 + smart),
        priceStep: p.market.priceStep,
        // The trend rule starts with the candles before the period, as a started bot's does.
        warmup: {
          candles: CLASSIC_DCA_OPTIONS.maPeriod + 2,
          initialState: (history) => createClassicState(botId, config, history),
        },
      };
    },
  }),
};
