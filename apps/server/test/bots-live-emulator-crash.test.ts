import { BinanceSpotEmulator, FAULT_KINDS, MarketSimulator } from '@bytx/venues';
import { describe, expect, it } from 'vitest';
import { loginViaApi, registerViaApi } from '../../../e2e/helpers/accounts';
import { startServer } from '../../../e2e/harness';
import { openDatabase } from '../src/db/client';
import { kill9, seededRandom } from './crash.helpers';

/**
 * The live path under faults and crashes (issue 38 #7, the short form): a Grid Bot DCA bot on a live
 * Binance account that is the localhost exchange emulator (BINANCE_EMULATOR_URL), 20 % of the
 * exchange's answers faulted (dropped after accept, timeouts, 5xx, 429, partial and late fills,
 * unknown orders, clock skew), the platform SIGKILLed a few times while trading. At the end the
 * emulator's ledger must equal the bot's journal: every order the exchange holds is journaled with
 * its fate and fill (none placed twice under another id), and every journaled order is on the
 * exchange (none lost).
 */

const KILLS = Number(process.env.EMULATOR_CRASH_KILLS ?? 3);
const KEY = 'emulatorCrashKey7Qp2Lm';
const SECRET = 'emulatorCrashSecret_Zr8Kw3Yh6Tq1Nb';
const EX = 'binance';
const SYM = 'BTC/USDT';
const PASSWORD = 'Crash-Test-Passw0rd!';

type Json = Record<string, unknown>;

async function post(base: string, path: string, body: unknown, token?: string): Promise<Json> {
  for (let attempt = 0; ; attempt++) {
    const res = await fetch(`${base}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify(body),
    });
    const json = (await res.json()) as Json;
    // The load shedding's 503, or the exchange emulator's fault on a call made inside the request.
    if ((res.status === 503 || res.status >= 500) && attempt < 8) {
      await new Promise((r) => setTimeout(r, 500));
      continue;
    }
    if (!res.ok) throw new Error(`${path}: ${res.status} ${JSON.stringify(json)}`);
    return json;
  }
}

describe('live Binance (emulated) under faults and SIGKILL', () => {
  it(`a Grid Bot DCA survives ${KILLS} kills with 20 % of requests faulted: journal = exchange ledger`, async () => {
    const t0 = Date.now();
    const emu = new BinanceSpotEmulator({
      simulator: new MarketSimulator({ seed: 99 }),
      apiKey: KEY,
      secret: SECRET,
      seed: 38,
      faults: { lateMs: 1_000, retryAfterS: 1 },
    });
    await emu.start();
    const ENV = {
      SIMULATOR_CONTROL: '1',
      BOT_RUNNER: '1',
      LOG_LEVEL: 'warn',
      BINANCE_EMULATOR_URL: emu.baseUrl,
    };
    let server = await startServer(ENV);
    const dataDir = server.dataDir;
    const rand = seededRandom(4242);
    // One price for both markets: the platform's (its simulated market data) and the exchange's.
    const setPrice = async (base: string, price: number) => {
      emu.simulator.setPrice(EX, SYM, price);
      await post(base, '/api/dev/market/price', { exchange: EX, symbol: SYM, price }).catch(() => undefined);
    };
    let kills = 0;
    try {
      const email = 'emucrash@example.com';
      await registerViaApi(server.baseUrl, server.outboxDir, email, PASSWORD);
      const token = await loginViaApi(server.baseUrl, email, PASSWORD);
      const p0 = Math.round(emu.simulator.price(EX, SYM));
      await setPrice(server.baseUrl, p0);
      await post(
        server.baseUrl,
        '/api/conectar_exchange',
        { exchange: EX, apiKey: KEY, apiSecret: SECRET },
        token,
      );
      // The bot's first orders (base and safety orders) meet a lost answer, a partial fill, a late fill,
      // and two resting ones are unknown (-2013) to their first lookups (a restart's reconcile asks them).
      for (const kind of ['drop-after-accept', 'partial-fill', 'late-fill'] as const) emu.inject(kind);
      emu.inject('unknown-order', 2);
      await post(
        server.baseUrl,
        '/api/start_bot_dca',
        { symbol: SYM, amount: '25', tp: '0.5', separacion: '0.5', os: '4', exchange: EX, apartado: 'Spot' },
        token,
      );
      // From here on, one request in five is faulted, every kind, 'unknown-order' too: a -2013 on the
      // lookup of a live order is checked against the open and all-orders lists (exchanges/lookups.ts),
      // so a restart's reconcile finds the order open instead of journaling it as cancelled.
      emu.setFaultRate(0.2, FAULT_KINDS);
      let price = p0;
      while (kills < KILLS) {
        const until = Date.now() + 1_500 + rand() * 2_000;
        while (Date.now() < until) {
          price = Math.max(p0 * 0.97, Math.min(p0 * 1.02, price * (1 + (rand() - 0.5) * 0.01)));
          await setPrice(server.baseUrl, Math.round(price));
          if (rand() < 0.2) await emu.releaseWithheld();
          await new Promise((r) => setTimeout(r, 100 + rand() * 200));
        }
        await kill9(server);
        kills++;
        server = await startServer(ENV, dataDir);
        await setPrice(server.baseUrl, Math.round(price));
      }
      // Faults off, withheld remainders released: the last run reconciles and learns every fill.
      emu.setFaultRate(0);
      await emu.releaseWithheld();
      await new Promise((r) => setTimeout(r, 5_000));
    } finally {
      await server.stop();
    }

    const ledger = await emu.ledger();
    const applied = { ...emu.faults.applied };
    await emu.stop();
    const database = await openDatabase({ dataDir });
    try {
      const q = (text: string, params?: unknown[]) => database.sql.query(text, params);
      const journal = await q(`SELECT client_order_id, status, filled FROM bot_orders`);
      const byCid = new Map(journal.map((r) => [String(r.client_order_id), r]));
      const problems: string[] = [];
      const seen = new Set<string>();
      for (const e of ledger) {
        if (seen.has(e.clientOrderId)) problems.push(`${e.clientOrderId} placed twice`);
        seen.add(e.clientOrderId);
        const j = byCid.get(e.clientOrderId);
        if (!j) {
          problems.push(`${e.clientOrderId} (${e.status}) on the exchange is unknown to the journal`);
          continue;
        }
        const want = e.status === 'closed' ? 'filled' : e.status === 'open' ? 'open' : 'cancelled';
        if (String(j.status) !== want)
          problems.push(`${e.clientOrderId}: exchange ${e.status}, journal ${String(j.status)}`);
        if (Math.abs(Number(j.filled) - e.filled) > 1e-10)
          problems.push(`${e.clientOrderId}: exchange filled ${e.filled}, journal ${String(j.filled)}`);
      }
      for (const j of journal) {
        const cid = String(j.client_order_id);
        if ((j.status === 'open' || j.status === 'filled') && !seen.has(cid))
          problems.push(`${cid}: journal ${String(j.status)} but the exchange has no such order (lost)`);
      }
      console.log(
        `[emulator crash] ${kills} kills in ${Math.round((Date.now() - t0) / 1000)} s; ${ledger.length} orders on ` +
          `the exchange, ${journal.length} journaled; ${emu.requests} requests, faults ${JSON.stringify(applied)}; ` +
          `resends refused as duplicates: ${emu.duplicateAttempts}`,
      );
      expect(ledger.filter((e) => e.filled > 0).length, 'the bot traded').toBeGreaterThan(0);
      expect(kills).toBeGreaterThanOrEqual(KILLS);
      expect(problems).toEqual([]);
    } finally {
      await database.close();
    }
  }, 180_000);
});
