/* eslint-disable @typescript-eslint/no-explicit-any -- JSON answers read loosely */
import { BACKTEST_KINDS, fillMessage } from '@bytx/contract';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { botOrders, bots } from '../src/db/schema/index';
import { backtestKinds, botKindModules, runnerKinds } from '../src/modules/bots/kinds';
import { runners } from '../src/modules/bots/routes';
import { until } from './bots.helpers';
import { apiCaller, createTestUser, makeTestApp, type TestApp } from './helpers';
import { TWO_MARKETS_TEXTS } from './kinds/two-markets/kind';
import { OTHER, OWN, twoMarkets, type TwoMarketState } from './kinds/two-markets/strategy';

/*
 * Adding a kind is one folder per layer and one line per list (docs/bots/adding-a-kind.md): here the
 * test kind's module (kinds/two-markets/kind.ts) is the one line added to the list of kinds
 * (modules/bots/kinds/index.ts), and the app derives the rest from it.
 */
vi.mock('../src/modules/bots/kinds/index', async (importOriginal) => {
  const real = await importOriginal<typeof import('../src/modules/bots/kinds/index')>();
  const { twoMarketsKind } = await import('./kinds/two-markets/kind');
  return { ...real, botKindModules: [...real.botKindModules, twoMarketsKind] };
});

type User = Awaited<ReturnType<typeof createTestUser>>;

describe('the list of kinds', () => {
  it('derives the runner strategies and the backtest kinds (the contract BACKTEST_KINDS) from it', () => {
    const strategies = runnerKinds(botKindModules);
    for (const k of botKindModules) expect(strategies.get(k.id)).toBe(k.strategy);
    // The list here has the test kind added (above); the app's own is the same without it.
    expect(botKindModules.map((k) => k.id)).toContain(twoMarkets.kind);
    expect([...backtestKinds().keys()].sort()).toEqual([...BACKTEST_KINDS].sort());
  });
});

describe('a bot kind added as one module (the test kind two_markets_test)', () => {
  let t: TestApp;
  let alice: User;
  const call = apiCaller(() => t.app);
  const setPrice = async (exchange: string, price: number) => {
    const r = await call(null, 'POST', '/api/dev/market/price', { exchange, symbol: OWN.symbol, price });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
  };

  beforeAll(async () => {
    t = await makeTestApp({ BOT_RUNNER: '1', SIMULATOR_CONTROL: '1' });
    alice = await createTestUser(t);
    for (const exchange of [OWN.exchange, OTHER.exchange]) {
      const r = await call(alice, 'POST', '/api/conectar_exchange', {
        exchange,
        mode: 'paper',
        user_id: alice.email,
      });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      await setPrice(exchange, 60_000);
    }
  });
  afterAll(async () => t?.close());

  it('is started by its own call through create-and-launch, run by the runner, and listed with its figures', async () => {
    const runner = runners.get(t.ctx)!;
    // The runner's strategies were derived from the list: the test kind's is among them.
    expect(runner.strategyOf(twoMarkets.kind)).toBe(twoMarkets);

    const start = await call(alice, 'POST', '/api/test/two_markets/start', {
      ...OWN,
      user_id: alice.email,
    });
    expect(start.status, JSON.stringify(start.body)).toBe(200);
    const id = start.body.id as string;
    const [row] = await t.ctx.db.select().from(bots).where(eq(bots.id, id));
    expect(row).toMatchObject({ kind: twoMarkets.kind, status: 'active', userId: alice.id, ...OWN });

    // Launched here (BOT_RUNNER): the runner feeds it both markets, and it sends its order to the other.
    await setPrice(OTHER.exchange, 60_100);
    const order = await until(async () => {
      const [o] = await t.ctx.db
        .select()
        .from(botOrders)
        .where(and(eq(botOrders.botId, id), eq(botOrders.exchange, OTHER.exchange)));
      return o?.status === 'open' ? o : null;
    }, 20_000);
    expect(order).toMatchObject({ side: 'buy', symbol: OTHER.symbol });
    const state = runner.handle(id)!.state as TwoMarketState;
    expect(state.ticks.some((x) => x.startsWith(`${OTHER.exchange}|`))).toBe(true);

    // A second start of the pair: the unique index, answered by create-and-launch with the kind's text.
    const again = await call(alice, 'POST', '/api/test/two_markets/start', { ...OWN, user_id: alice.email });
    expect(again.status).toBe(409);
    expect(again.body.error ?? again.body.message).toBe(fillMessage(TWO_MARKETS_TEXTS.alreadyActive, OWN));

    // The shared PnL list reads the kind's own figures (its "PnL" is the number of ticks it saw).
    const pnls = await call(alice, 'POST', '/api/pnls_actuales', { user_id: alice.email });
    expect(pnls.status).toBe(200);
    const mine = (pnls.body.pnls as any[]).find((p) => p.kind === twoMarkets.kind);
    expect(mine).toMatchObject({ ...OWN });
    expect(mine.pnl).toBeGreaterThan(0);

    // Stopped through the shared lifecycle (BotsService.stop): the strategy is told, the bot ends.
    const stop = await call(alice, 'POST', '/api/test/two_markets/stop', { ...OWN, user_id: alice.email });
    expect(stop.status, JSON.stringify(stop.body)).toBe(200);
    const [stopped] = await t.ctx.db.select().from(bots).where(eq(bots.id, id));
    expect(stopped!.status).toBe('stopped');
    expect((stopped!.state as TwoMarketState).stopped).toBe(true);
  });
});
