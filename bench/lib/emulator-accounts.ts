// The exchange side of the live-path bench, in a process of its own (forked with IPC), so its CPU and
// memory are not the platform's: one localhost Binance spot emulator per account (each its own port,
// API key, secret and paper account, as each user has their own exchange account), all on one
// MarketSimulator built like the platform process's (same seed and start time: the same markets and
// prices). The platform process forwards every price it sets (`prices`), before its own market data
// sees it, as a trade on the exchange comes before the ticker a platform reads.
import { BinanceSpotEmulator, MarketSimulator } from '@bytx/venues';

export const SIM_OPTIONS = { seed: 7, startTime: Date.UTC(2025, 0, 15) };
export const accountKey = (i: number) => `bench-key-${i}`;
export const accountSecret = (i: number) => `bench-secret-${i}`;

/** Messages from the platform process. */
export type ToEmulator =
  { kind: 'prices'; prices: [symbol: string, price: number][] } | { kind: 'cpu' } | { kind: 'stop' };
/** Messages to the platform process. */
export type FromEmulator =
  | { kind: 'ready'; urls: string[] }
  | { kind: 'cpu'; userMs: number; systemMs: number; rssMb: number; requests: number };

if (process.env.EMULATOR_ACCOUNTS && process.send) {
  const n = Number(process.env.EMULATOR_ACCOUNTS);
  const sim = new MarketSimulator(SIM_OPTIONS);
  const emulators: BinanceSpotEmulator[] = [];
  const urls: string[] = [];
  for (let i = 0; i < n; i++) {
    // 1,000,000 USDT: the round trip places thousands of resting buys on one account.
    const e = new BinanceSpotEmulator({
      simulator: sim,
      apiKey: accountKey(i),
      secret: accountSecret(i),
      initialBalances: { USDT: n === 1 ? 1_000_000 : 10_000 },
    });
    urls.push(await e.start());
    emulators.push(e);
  }
  const send = (m: FromEmulator) => process.send!(m);
  process.on('message', (m: ToEmulator) => {
    if (m.kind === 'prices') {
      for (const [symbol, price] of m.prices) sim.setPrice('binance', symbol, price);
    } else if (m.kind === 'cpu') {
      const c = process.cpuUsage();
      send({
        kind: 'cpu',
        userMs: c.user / 1000,
        systemMs: c.system / 1000,
        rssMb: process.memoryUsage().rss / 2 ** 20,
        requests: emulators.reduce((a, e) => a + e.requests, 0),
      });
    } else if (m.kind === 'stop') {
      void Promise.all(emulators.map((e) => e.stop())).finally(() => process.exit(0));
    }
  });
  send({ kind: 'ready', urls });
}
