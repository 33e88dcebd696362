/**
 * What one step of any strategy works on, and the start and end every step shares: the state is a
 * shallow copy of the input (never mutated), the time is the event's (else the last one seen), and the
 * places are emitted after the cancels so the venue frees funds before they are needed again.
 */
import type { StepResult, StrategyCommand, StrategyEvent } from '../strategy';

/** The fields every strategy state has that a step's shared helpers touch. */
export interface BaseState {
  botId: string;
  seq: number;
  lastTs: number | null;
}

export interface StepContext<S> {
  s: S;
  cmds: StrategyCommand[];
  /** Places are collected and emitted after cancels so funds are freed first. */
  places: StrategyCommand[];
  ts: number;
  /** Copy-on-write: whether the nested orders (and lots) of `s` are already this step's own copies. */
  owned: boolean;
}

/** The context of a step of `event` on a shallow copy of `state`. */
export function beginStep<S extends BaseState>(state: S, event: StrategyEvent): StepContext<S> {
  const s: S = { ...state };
  const ts = 'ts' in event && typeof event.ts === 'number' ? event.ts : (s.lastTs ?? 0);
  return { s, cmds: [], places: [], ts, owned: false };
}

/** The step's result: the new state and its commands, cancels before places. */
export function endStep<S>(cx: StepContext<S>): StepResult<S> {
  const commands = cx.places.length === 0 ? cx.cmds : cx.cmds.concat(cx.places);
  return { state: cx.s, commands };
}

/** The next client order id `${botId}-${seq}`: deterministic, never repeated for a bot. */
export function nextId(s: BaseState): string {
  const id = `${s.botId}-${s.seq}`;
  s.seq += 1;
  return id;
}

/**
 * A quiet tick written in place (a runner's `noteQuietTick`): only the last price and time change, as
 * the step would leave them. Strategies that build more from ticks (the classic DCA's candles) add to it.
 */
export function noteQuietTick(
  s: { status: string; lastPrice: number | null; lastTs: number | null },
  price: number,
  ts: number,
): void {
  if (s.status === 'stopped') return;
  s.lastPrice = price;
  s.lastTs = ts;
}
