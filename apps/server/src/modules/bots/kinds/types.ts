import type { BacktestKind } from '@bytx/contract';
import type { Candle, MarketRules } from '@bytx/engine';
import type { z } from 'zod';
import type { BotRow } from '../bots.repository';
import type { KindPlugin } from '../kind-plugin';
import type { AnyStrategy } from '../runner/types';
import type { StartParamDeps } from '../start-params';

/**
 * What the calls every kind shares (`pnls_actuales`, the start cap, one derivatives bot per market)
 * need of a kind's bots.
 */
export interface KindFigures {
  /** Whether `figures` needs the pair's current price (a kind holding a position shows unrealized PnL). */
  needsPrice: boolean;
  /** PnL in quote (realized, plus unrealized where the kind holds a position) and time in trade in seconds. */
  figures(row: BotRow, state: unknown, price: number | null, now: number): { pnl: number; ttr: number };
}

/**
 * A bot a kind leaves behind rather than one the user starts (the classic DCA's VNC, which holds what a
 * stopped bot kept): run by the runner, listed with its figures, not counted by MAX_BOTS_PER_USER nor
 * by the one-derivatives-bot-per-market check.
 */
export interface LeftoverKind {
  id: string;
  strategy: AnyStrategy;
  figures: KindFigures;
}

/** What a backtest of a kind runs (backtest/service.ts `prepare`, then the worker). */
export interface BacktestPlan {
  exchange: string;
  symbol: string;
  rules: MarketRules;
  config: unknown;
  initialState: unknown;
  /** The budget the bot can commit, when the request names none. */
  defaultBudget: number;
  priceStep: number;
  /**
   * A kind whose strategy starts from the candles before the period (the classic DCA's trend rule):
   * how many it needs and the initial state made with them. Only for the exchange's candles.
   */
  warmup?: { candles: number; initialState(history: Candle[]): unknown };
}

/**
 * How a kind is backtested: its start form (the same schema and parser as its start call, so the same
 * messages), turned into a plan for the engine's `runBacktest` with the kind's strategy.
 */
export interface BacktestAdapter {
  /** The backtest kind of the contract (`BACKTEST_KINDS`, the request's `kind`). */
  kind: BacktestKind;
  /** The form's field the request's `symbol` fills (the grid's form names it `pair`). */
  symbolField: string;
  /** Checks the form (already merged with the request's exchange and symbol) and plans the run. */
  prepare(
    form: Record<string, unknown>,
    deps: StartParamDeps,
    botId: string,
    schemaError: (error: z.ZodError) => Error,
  ): Promise<BacktestPlan>;
}

/**
 * A backtest adapter typed by its form's schema: the parsed form reaches `plan` typed, the list holds
 * the adapter without the type.
 */
export function backtestAdapter<S extends z.ZodType>(a: {
  kind: BacktestKind;
  form: S;
  symbolField: string;
  plan(form: z.output<S>, deps: StartParamDeps, botId: string): Promise<BacktestPlan>;
}): BacktestAdapter {
  return {
    kind: a.kind,
    symbolField: a.symbolField,
    async prepare(form, deps, botId, schemaError) {
      const parsed = a.form.safeParse(form);
      if (!parsed.success) throw schemaError(parsed.error);
      return a.plan(parsed.data, deps, botId);
    },
  };
}

/**
 * One bot kind, everything the platform needs of it (docs/bots/adding-a-kind.md). Each kind's folder
 * `modules/bots/kinds/<kind>/` exports one from its `kind.ts`; `kinds/index.ts` lists them, and the
 * runner's strategies, the kinds' routes, the figures of the shared lists and the backtest are all
 * derived from that list. The kind's own calls (the spec's URLs and fields) are in its routes plugin;
 * a start goes through `createAndLaunch` (create.ts) with the kind's own refusal texts.
 */
export interface BotKindModule {
  /** `bots.kind`: the engine strategy's `kind`. */
  id: string;
  /** The pure strategy the runner runs (packages/engine). */
  strategy: AnyStrategy;
  /** The kind's own calls (start, stop, list, history…), registered by the bots module. */
  routes: KindPlugin;
  /** Its bots' figures in the shared lists and PnL (`pnls_actuales`). */
  figures: KindFigures;
  /** Bots it leaves behind, run and listed but not counted (the classic DCA's VNC). */
  leftovers?: readonly LeftoverKind[];
  /** How it is backtested (`POST /api/backtest`); none: the kind has no backtest. */
  backtest?: BacktestAdapter;
}
