/* eslint-disable @typescript-eslint/no-explicit-any -- JSON answers read loosely */
import { InvalidOrderError, VenueRateLimitError, type Venue, type VenueError } from '@bytx/venues';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runners } from '../src/modules/bots/routes';
import { VENUE_ERROR_CLASSES, venueErrorAnswer } from '../src/lib/venue-errors';
import { createTestUser, makeTestApp, type TestApp } from './helpers';

const EX = 'binance';

/** One instance of every VenueError class, as the venue boundary throws them. */
function everyError(): VenueError[] {
  return VENUE_ERROR_CLASSES.map((C) =>
    C === InvalidOrderError
      ? new InvalidOrderError('binance refuses this order: bad precision', EX, 'precision')
      : new (C as new (m: string, e: string) => VenueError)(`${C.name} from the exchange`, EX),
  );
}

describe('venue errors are translated at the boundary, in one place', () => {
  let t: TestApp;
  let user: Awaited<ReturnType<typeof createTestUser>>;

  beforeAll(async () => {
    t = await makeTestApp({ SIMULATOR_CONTROL: '1', BOT_RUNNER: '1' });
    user = await createTestUser(t);
    const r = await t.app.inject({
      method: 'POST',
      url: '/api/conectar_exchange',
      headers: user.auth,
      payload: { exchange: EX, mode: 'paper' },
    });
    expect(r.statusCode).toBe(200);
  });
  afterAll(async () => t.close());

  it('maps every class to a 4xx, 502 or 503 with a message, never a 401 or a 500', () => {
    const seen = new Set<number>();
    for (const err of everyError()) {
      const a = venueErrorAnswer(err);
      seen.add(a.statusCode);
      expect([400, 404, 502, 503], err.name).toContain(a.statusCode);
      expect(a.message, err.name).toMatch(/Binance|binance/);
    }
    const limited = new VenueRateLimitError('slow down', EX);
    limited.retryAfterMs = 7_000;
    expect(venueErrorAnswer(limited).extra.retryAfter).toBe(7);
    expect(seen.has(503)).toBe(true);
  });

  it('walks every class through the wallet and the bot start: each an answer, none a 500', async () => {
    const venues = t.ctx.services.venues!;
    const forUser = venues.forUser.bind(venues);
    // Transient errors are retried with backoff before they count: short waits keep the test quick.
    runners.get(t.ctx)!.deps.retryBaseMs = 5;
    const problems: string[] = [];
    try {
      for (const err of everyError()) {
        // The user's venue fails every call with this error (as a real exchange's HTTP boundary would).
        const failing = new Proxy({} as Venue, {
          get: (_t, prop) => {
            if (prop === 'kind') return 'paper';
            if (prop === 'exchange') return EX;
            // Not a thenable, no flush, never closed: only the venue calls fail.
            if (prop === 'closed' || prop === 'flush' || prop === 'then') return undefined;
            if (prop === 'onOrderUpdate') return () => () => undefined;
            if (prop === 'close') return () => Promise.resolve();
            return () => Promise.reject(err);
          },
        });
        venues.forUser = async () => failing;
        const wallet = await t.app.inject({
          method: 'GET',
          url: `/api/wallet?exchange=${EX}`,
          headers: user.auth,
        });
        if (wallet.statusCode >= 500 && wallet.statusCode !== 502 && wallet.statusCode !== 503)
          problems.push(`wallet ${err.name}: ${wallet.statusCode}`);
        const start = await t.app.inject({
          method: 'POST',
          url: '/api/start_bot_dca',
          headers: user.auth,
          payload: { exchange: EX, symbol: 'BTC/USDT', amount: 20, tp: 1, separacion: 1, os: 3 },
        });
        const body = start.json<Record<string, any>>();
        if (start.statusCode === 500 || start.statusCode < 400)
          problems.push(`start ${err.name}: ${start.statusCode}`);
        if (!/^Failed to start the Bot: /.test(String(body.error)))
          problems.push(`start ${err.name}: ${String(body.error)}`);
        await runners.get(t.ctx)!.idle();
      }
    } finally {
      venues.forUser = forUser;
    }
    expect(problems).toEqual([]);
    // No start left a bot holding the pair: the same start works with a venue that answers.
    const ok = await t.app.inject({
      method: 'POST',
      url: '/api/start_bot_dca',
      headers: user.auth,
      payload: { exchange: EX, symbol: 'BTC/USDT', amount: 20, tp: 1, separacion: 1, os: 3 },
    });
    expect(ok.statusCode, ok.body).toBe(200);
  });
});
