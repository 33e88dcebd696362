import { randomUUID } from 'node:crypto';
import { fillMessage } from '@bytx/contract';
import { z } from 'zod';
import { createAndLaunch } from '../../../src/modules/bots/kinds/create';
import type { BotKindModule } from '../../../src/modules/bots/kinds/types';
import { strategyIdOf } from '../../../src/modules/bots/runner';
import { notFound } from '../../../src/lib/errors';
import { currentUser } from '../../../src/plugins/auth';
import { twoMarkets, type TwoMarketState } from './strategy';

/** The test kind's start texts (a real kind's are in its contract messages, en and es). */
export const TWO_MARKETS_TEXTS = {
  alreadyActive: 'A two-markets test bot is already active on {exchange} {symbol}.',
  startFailed: 'The two-markets test bot could not start: {reason}',
};

const pairBody = z.object({ exchange: z.string(), symbol: z.string() });

/**
 * The test kind as a server module (docs/bots/adding-a-kind.md, the worked example): the strategy the
 * runner tests use (./strategy.ts, standing in for packages/engine/src/<kind>/), its own calls, its
 * figures. bots-kind-module.test.ts adds it to the list of kinds, one line, and runs it through the app.
 */
export const twoMarketsKind: BotKindModule = {
  id: twoMarkets.kind,
  strategy: twoMarkets,
  routes: async (app, opts) => {
    const auth = { onRequest: app.authenticate };
    app.post('/api/test/two_markets/start', { ...auth, schema: { body: pairBody } }, async (req) => {
      const id = randomUUID();
      const row = await createAndLaunch(
        opts,
        {
          id,
          userId: currentUser(req).id,
          kind: twoMarkets.kind,
          exchange: req.body.exchange,
          symbol: req.body.symbol,
          config: {},
          state: twoMarkets.create(strategyIdOf(id), null),
        },
        TWO_MARKETS_TEXTS,
      );
      return { success: true, id: row.id };
    });
    app.post('/api/test/two_markets/stop', { ...auth, schema: { body: pairBody } }, async (req) => {
      const { exchange, symbol } = req.body;
      const row = await opts.repo.activeFor(currentUser(req).id, exchange, symbol, twoMarkets.kind);
      if (!row) throw notFound(fillMessage('No two-markets test bot on {exchange} {symbol}.', req.body));
      await opts.bots.stop(row, 'cancel_only');
      return { success: true };
    });
  },
  figures: {
    needsPrice: true,
    // It trades nothing to speak of: its "PnL" is the number of ticks it saw, so a test sees its figures.
    figures: (row, state, _price, now) => ({
      pnl: (state as TwoMarketState).ticks.length,
      ttr: Math.round((now - row.startedAt.getTime()) / 1000),
    }),
  },
};
