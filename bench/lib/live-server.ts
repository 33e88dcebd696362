// A real server for the HTTP benches: `apps/server/src/main.ts` in a child process (the same start as
// the browser tests, e2e/harness.ts), its PGlite store in a fresh DATA_DIR, and a user seeded through
// the public API with a paper account and Grid Bot DCA bots, as a person would set it up.
import { simulatedSymbols } from '@bytx/venues';
import { apiCall } from '../../e2e/helpers/api';
import { loginViaApi, registerViaApi } from '../../e2e/helpers/accounts';
import { startServer, type RunningServer } from '../../e2e/harness';

export const BENCH_PASSWORD = 'violet-harbor-73';

export interface SeededServer {
  server: RunningServer;
  email: string;
  token: string;
  /** Other accounts with the same password and no bots (logins are limited per address and email). */
  others: string[];
  stop: () => Promise<void>;
}

/**
 * Starts the server with the product's own load-shedding defaults (`env` may set anything else) and seeds one user with `bots` Grid Bot DCA bots
 * on a paper Binance account.
 */
export async function startSeededServer(
  bots: number,
  env: Record<string, string> = {},
  otherUsers = 0,
): Promise<SeededServer> {
  // BENCH_SERVER_NODE_ARGS go to the server's node (a profile of a bench: `--cpu-prof --cpu-prof-dir=…`).
  const nodeArgs = process.env.BENCH_SERVER_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
  const server = await startServer({ LOG_LEVEL: 'warn', ...env }, undefined, { nodeArgs });
  try {
    const email = 'bench-user@example.com';
    await registerViaApi(server.baseUrl, server.outboxDir, email, BENCH_PASSWORD);
    const token = await loginViaApi(server.baseUrl, email, BENCH_PASSWORD);
    await apiCall(server.baseUrl, token, 'POST', '/api/conectar_exchange', {
      exchange: 'binance',
      mode: 'paper',
    });
    const pairs = simulatedSymbols().filter((s) => s.endsWith('/USDT'));
    for (let i = 0; i < bots; i++) {
      await apiCall(server.baseUrl, token, 'POST', '/api/start_bot_dca', {
        exchange: 'binance',
        symbol: pairs[i % pairs.length],
        amount: 20,
        tp: 1,
        separacion: 1,
        os: 3,
      });
    }
    const others: string[] = [];
    for (let i = 0; i < otherUsers; i++) {
      others.push(`bench-other-${i}@example.com`);
      await registerViaApi(server.baseUrl, server.outboxDir, others[i]!, BENCH_PASSWORD);
    }
    return { server, email, token, others, stop: () => server.stop() };
  } catch (e) {
    await server.stop();
    throw e;
  }
}
