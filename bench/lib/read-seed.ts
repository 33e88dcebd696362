// The account behind the HTTP read bench (bench/http.bench.ts): one user, seeded through the public API
// as a person would, with 20 bots of mixed kinds running on paper accounts and real rows behind every
// read the web app makes: events, closed trades, open lots (pending orders), a derivatives position, a
// signal bot's signals, a backtest, a forum post, a favourite pair.
import { simulatedSymbols } from '@bytx/venues';
import { apiCall } from '../../e2e/helpers/api';

/** Bots running at the end of the seed, by kind (20 in all). */
export const RUNNING = { gridDca: 10, classicDca: 4, grid: 3, signal: 2, arbitrage: 1 } as const;
/** Grid Bot DCA bots started and then stopped with a market close: closed bots and history rows. */
const CLOSED_DCA = 2;
/** Open lots of the running Grid Bot DCA bots sold at market: more history, the pending list keeps the rest. */
const LOTS_SOLD = 4;

/** What the seed made, by what the calls' parameters need. */
export interface Seeded {
  dcaBotId: string;
  gridBotId: string;
  signalBotId: string;
  backtestId: string | null;
  lotIds: string[];
  /** Pairs of the running Grid Bot DCA and classic DCA bots (the bodies of pnls/vncs/dcas_actuales). */
  dcaPairs: string[];
  classicPairs: string[];
  price: number;
  /** Seed steps that failed (the bench carries on; the calls they fed say so). */
  notes: string[];
}

type Json = Record<string, unknown>;

/** An id field of an answer (a string or a number), '' when absent. */
const idOf = (v: unknown): string => (typeof v === 'string' || typeof v === 'number' ? String(v) : '');

export async function seedReads(base: string, token: string, email: string): Promise<Seeded> {
  const notes: string[] = [];
  const post = (path: string, body: unknown) => apiCall(base, token, 'POST', path, body) as Promise<Json>;
  const get = (path: string) => apiCall(base, token, 'GET', path) as Promise<Json>;
  /** A step whose failure is noted, not fatal (its calls then answer without its rows). */
  const tryStep = async <T>(what: string, fn: () => Promise<T>): Promise<T | null> => {
    try {
      return await fn();
    } catch (e) {
      notes.push(`${what}: ${e instanceof Error ? e.message.slice(0, 120) : String(e)}`);
      return null;
    }
  };
  for (const exchange of ['binance', 'bybit']) {
    await post('/api/conectar_exchange', { exchange, mode: 'paper' });
  }
  const usdt = simulatedSymbols().filter((s) => s.endsWith('/USDT') && s !== 'ETH/USDT');
  let next = 0;
  const take = (n: number) => usdt.slice(next, (next += n));
  // One pair per bot (the Arbitrage bot takes ETH/USDT on both exchanges).
  const needed = RUNNING.gridDca + CLOSED_DCA + RUNNING.classicDca + RUNNING.grid + RUNNING.signal;
  if (usdt.length < needed) throw new Error(`only ${usdt.length} USDT pairs, ${needed} needed`);

  // Grid Bot DCA: running, and two stopped with a market close (closed bots, history rows).
  const dcaPairs = take(RUNNING.gridDca);
  const closedPairs = take(CLOSED_DCA);
  let dcaBotId = '';
  for (const symbol of [...dcaPairs, ...closedPairs]) {
    const r = await post('/api/start_bot_dca', {
      exchange: 'binance',
      symbol,
      amount: 20,
      tp: 1,
      separacion: 1,
      os: 3,
    });
    dcaBotId ||= idOf((r.bot as Json).id);
  }
  for (const symbol of closedPairs) {
    await post('/api/stop_bot_dca', { exchange: 'binance', symbol, mode: 'close_market' });
  }
  // Classic DCA (a VNC kind): 100 USDT, TP 1 %, 2 safety orders 1 % apart.
  const classicPairs = take(RUNNING.classicDca);
  for (const symbol of classicPairs) {
    await post('/api/start_bot', {
      exchange: 'binance',
      symbol,
      amount: '100',
      tp: '1',
      separacion: '1',
      os: '2',
      r: false,
      r_os: false,
      apartado: 'Spot',
      trend_filter: false,
    });
  }
  // Grid bots: a spot grid 0.5 % apart over ±3.5 % of the price.
  let gridBotId = '';
  let price = 0;
  for (const pair of take(RUNNING.grid)) {
    const p = Number((await post('/api/min_cost', { exchange: 'binance', symbol: pair })).price);
    price ||= p;
    const r = await post('/api/gridbot/start', {
      user: email,
      exchange: 'binance',
      pair,
      marketType: 'spot',
      lowPrice: String(p * 0.965),
      highPrice: String(p * 1.035),
      amountPerLevel: '20',
      stepPercentage: '0.5',
      profitCurrency: 'quote',
      position: 'long',
    });
    gridBotId ||= idOf(r.id) || idOf((r.bot as Json | undefined)?.id);
  }
  if (!gridBotId) {
    const active = await post('/api/gridbot/activos', { user: email });
    gridBotId = idOf(((active.bots ?? active.activos) as Json[] | undefined)?.[0]?.id);
  }
  // Signal bots, each with a buy signal (a trade and a signal row).
  let signalBotId = '';
  for (const symbol of take(RUNNING.signal)) {
    const r = await post('/api/signalbot/bots', {
      exchange: 'binance',
      symbol,
      amount: 50,
      max_position: 100,
    });
    const id = idOf(r.id) || idOf((r.bot as Json | undefined)?.id);
    signalBotId ||= id;
    await tryStep('signal buy', () =>
      post(`/api/signalbot/webhook/${id}`, { secret: r.secret, action: 'buy', symbol }),
    );
  }
  // The Arbitrage bot (Binance and Bybit paper accounts).
  await tryStep('arbitrage start', () =>
    post('/api/start_arbitraje', { symbol: 'ETH/USDT', monto_usdt: '1000' }),
  );
  // A derivatives position (a perpetual on the paper account's derivatives wallet).
  await tryStep('futures position', () =>
    post('/api/spot/order', {
      exchange: 'binance',
      symbol: 'BTC/USDT:USDT',
      type: 'market',
      side: 'long',
      quantity: '0.002',
    }),
  );
  // Some open Grid Bot DCA lots sold at market: history rows; the rest stay pending. Not the classic DCA
  // positions: selling one ends its cycle, and with `r: false` its bot stops, which left the classic DCA
  // reads (dcas_actuales, vncs_actuales, bots_activos) measuring empty answers.
  const open = await get('/api/dca/pending_orders?per_page=200');
  const lots = ((open.orders ?? []) as { id: string; kind: string }[])
    .filter((o) => o.kind === 'grid-dca')
    .map((o) => o.id);
  for (const id of lots.slice(0, LOTS_SOLD))
    await tryStep('lot sale', () => post('/api/dca/pending_orders/sell', { id }));
  const backtest = await tryStep('backtest', () =>
    post('/api/backtest', {
      kind: 'grid-dca',
      params: {
        symbol: 'BTC/USDT',
        amount: '20',
        tp: '1',
        separacion: '1',
        os: '3',
        exchange: 'binance',
        apartado: 'Spot',
      },
    }),
  );
  await tryStep('forum post', () => post('/api/forum/posts', { content: 'bench: a post with a reply' }));
  await tryStep('favourite', () =>
    post('/api/spot/favorites', { exchange: 'binance', symbol: 'BTC/USDT', favorite: true }),
  );
  await tryStep('leverage', () =>
    post('/api/set_leverage', { exchange: 'binance', symbol: 'BTC/USDT', leverage: 3 }),
  );
  return {
    dcaBotId,
    gridBotId,
    signalBotId,
    backtestId: backtest ? idOf(backtest.id) || null : null,
    lotIds: lots.slice(LOTS_SOLD, LOTS_SOLD + 6),
    dcaPairs,
    classicPairs,
    price,
    notes,
  };
}
