/* eslint-disable @typescript-eslint/no-explicit-any -- JSON answers read loosely */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BinanceSpotEmulator, EMULATOR_API_KEY, EMULATOR_SECRET } from '@bytx/venues';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loginViaApi, registerViaApi } from '../../../e2e/helpers/accounts';
import { startServer, type RunningServer } from '../../../e2e/harness';

/**
 * ccxt (0.5 s of CPU per import in the bundle, 1.2-1.5 s under tsx) is loaded only when a live venue is
 * made (packages/venues/src/live-loader.ts; docs/performance.md "ccxt loaded on demand"): the real
 * server (the test run's bundle), its module loads recorded by a loader hook, serves a paper account, a
 * paper bot and the capability table without it, then loads it for a live (emulated) Binance connection,
 * which works.
 */
describe('ccxt is loaded on demand', () => {
  const record = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'bytx-ccxt-')), 'ccxt.txt');
  const recorded = () => (fs.existsSync(record) ? fs.readFileSync(record, 'utf8') : '');
  const emulator = new BinanceSpotEmulator();
  let server: RunningServer;
  let token = '';

  const call = async (method: string, url: string, body?: unknown) => {
    const res = await fetch(`${server.baseUrl}${url}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, body: (await res.json()) as Record<string, any> };
  };

  beforeAll(async () => {
    await emulator.start();
    server = await startServer(
      { BINANCE_EMULATOR_URL: emulator.baseUrl, LOG_LEVEL: 'warn', RECORD_CCXT_FILE: record },
      undefined,
      { nodeArgs: ['--import', path.join(import.meta.dirname, 'ccxt-on-demand/record-ccxt.mjs')] },
    );
    await registerViaApi(server.baseUrl, server.outboxDir, 'ccxt@example.com', 'Ccxt-on-demand-1');
    token = await loginViaApi(server.baseUrl, 'ccxt@example.com', 'Ccxt-on-demand-1');
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
    await emulator.stop();
    fs.rmSync(path.dirname(record), { recursive: true, force: true });
  });

  it('a paper account, a paper bot and the capability table do not load ccxt', async () => {
    expect((await call('POST', '/api/conectar_exchange', { exchange: 'kraken', mode: 'paper' })).status).toBe(
      200,
    );
    const started = await call('POST', '/api/start_bot_dca', {
      exchange: 'kraken',
      apartado: 'Spot',
      symbol: 'BTC/USDT',
      amount: '25',
      tp: '1',
      separacion: '1',
      os: '3',
    });
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    // The runner trades it on the paper account: its base order fills (one open lot).
    const deadline = Date.now() + 20_000;
    let bot: Record<string, any> | undefined;
    while (Date.now() < deadline) {
      bot = (await call('GET', '/api/bots_activos_dca')).body.bots?.[0];
      if (bot && bot.open_lots >= 1) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(bot).toMatchObject({ exchange: 'kraken', status: 'active', open_lots: 1 });
    const caps = await call('GET', '/api/exchanges/capabilities');
    const rows = caps.body.exchanges as { exchange: string; perpetual: boolean }[];
    expect(rows.find((e) => e.exchange === 'binance')).toMatchObject({ perpetual: true });
    expect(recorded(), 'no module under node_modules/ccxt was loaded').toBe('');
  }, 30_000);

  it('a live connection (the Binance emulator) loads ccxt and works', async () => {
    const r = await call('POST', '/api/conectar_exchange', {
      exchange: 'binance',
      apiKey: EMULATOR_API_KEY,
      apiSecret: EMULATOR_SECRET,
    });
    // The connect reads the balance and the key's withdrawal right through ccxt from the emulator.
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(emulator.requestLog.map((q) => q.path)).toContain('/api/v3/account');
    expect(recorded()).toMatch(/node_modules\/ccxt\/.* imported by /);
  }, 30_000);
});
