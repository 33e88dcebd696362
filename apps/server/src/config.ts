import path from 'node:path';
import { z } from 'zod';

const boolFlag = z
  .enum(['0', '1', 'true', 'false'], { message: 'must be one of 0, 1, true, false' })
  .transform((v) => v === '1' || v === 'true');

const emailList = z
  .string()
  .transform((s) =>
    s
      .split(',')
      .map((e) => e.trim().toLowerCase())
      .filter((e) => e.length > 0),
  )
  .pipe(z.array(z.email({ message: 'must be a comma-separated list of email addresses' })));

/** An EVM address: 0x and 40 hex digits. */
const chainAddress = z
  .string()
  .regex(/^0x[0-9a-fA-F]{40}$/, 'must be an address: 0x and 40 hex digits')
  .transform((a) => a as `0x${string}`);

/** A whole number from min to max (ms, counts). */
const count = (min: number, max: number) =>
  z.coerce
    .number({ message: 'must be a whole number' })
    .int('must be a whole number')
    .min(min, `must be at least ${min}`)
    .max(max, `must be at most ${max}`);

/** Every variable the platform reads. README.md documents each one; keep them in step. */
const envSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  PORT: z.coerce.number({ message: 'must be a port number' }).int().min(0).max(65535).default(3000),
  HOST: z.string().min(1).default('0.0.0.0'),
  DATA_DIR: z.string().min(1).default('./data'),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// or postgresql:// URL')
    .optional(),
  MASTER_KEY: z
    .string()
    .regex(/^[0-9a-fA-F]{64}$/, 'must be 64 hex characters (a 256-bit key)')
    .optional(),
  /**
   * The master key's file when MASTER_KEY is unset; default `<DATA_DIR>.master.key` beside the data folder,
   * never inside it, so a copy of the data folder alone decrypts nothing (docs/limits.md "Secrets").
   */
  MASTER_KEY_FILE: z.string().min(1).optional(),
  /**
   * The address users reach the platform at (webhook URLs, the RPC URL shown to wallets). URLs shown to users
   * are built from it, never from a request's Host header. Unset: http://localhost:PORT.
   */
  PUBLIC_URL: z
    .string()
    .regex(/^https?:\/\/[^\s/?#]+(\/[^\s?#]*)?$/, 'must be an http:// or https:// URL with no query')
    .transform((u) => u.replace(/\/+$/, ''))
    .optional(),
  /** Days events and candles are kept (trades and history are kept for ever); docs/database.md. */
  RETENTION_DAYS: count(1, 36_500).default(30),
  /** `json`: one pino JSON line per record (machines); `pretty`: a readable line (a terminal). */
  LOG_FORMAT: z.enum(['json', 'pretty'], { message: 'must be json or pretty' }).optional(),
  MAIL_OUTBOX_DIR: z.string().min(1).optional(),
  SMTP_URL: z
    .string()
    .regex(/^smtps?:\/\//, 'must be an smtp:// or smtps:// URL')
    .optional(),
  MAIL_FROM: z.string().min(3).default('BYTX Platform <no-reply@localhost>'),
  MARKET_DATA: z.enum(['simulated', 'live'], { message: 'must be simulated or live' }).default('simulated'),
  SIMULATOR_CONTROL: boolFlag.default(false),
  /**
   * Tests only: live Binance connections trade against the exchange emulator at this loopback URL
   * (packages/venues/src/emulator; docs/venues.md). Refused in production.
   */
  BINANCE_EMULATOR_URL: z
    .string()
    .regex(/^http:\/\/127\.0\.0\.1:\d{1,5}$/, 'must be http://127.0.0.1:<port>')
    .optional(),
  /** Tests only: live Bybit connections trade against the Bybit v5 emulator here. Refused in production. */
  BYBIT_EMULATOR_URL: z
    .string()
    .regex(/^http:\/\/127\.0\.0\.1:\d{1,5}$/, 'must be http://127.0.0.1:<port>')
    .optional(),
  SUPPORT_EMAILS: emailList.default([]),
  LOGO_ALLOWLIST_EMAILS: emailList.default([]),
  /** Who opens /spot and /futuros: `support` (the spec: SUPPORT_EMAILS only) or `all` logged-in users. */
  TRADING_SCREENS: z.enum(['support', 'all'], { message: 'must be support or all' }).default('support'),
  REGISTRATION_OPEN: boolFlag.default(true),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  WEB_DIST_DIR: z.string().min(1).optional(),
  BOT_RUNNER: boolFlag.default(true),
  /** Active bots one user may run, every kind together (docs/limits.md). */
  MAX_BOTS_PER_USER: count(1, 10_000).default(50),
  /** Failed logins from one address across all emails per 15 minutes before 429 (password spraying). */
  LOGIN_FAILURES_PER_ADDRESS: count(1, 1_000_000).default(30),
  /** A request's headers must arrive within this (ms). */
  HTTP_HEADERS_TIMEOUT_MS: count(100, 600_000).default(10_000),
  /** A whole request (headers and body) must arrive within this (ms). */
  HTTP_REQUEST_TIMEOUT_MS: count(100, 600_000).default(30_000),
  /** An idle kept-alive connection is closed after this (ms). */
  HTTP_KEEP_ALIVE_TIMEOUT_MS: count(100, 600_000).default(5_000),
  /** A socket with no traffic at all is closed after this (ms). */
  HTTP_IDLE_TIMEOUT_MS: count(100, 600_000).default(30_000),
  /** API requests worked on at once; the next ones wait for a free place (0: no limit; docs/limits.md). */
  SHED_MAX_IN_FLIGHT: count(0, 1_000_000).default(64),
  /** New API requests get 503 + Retry-After while the oldest waiting one has waited longer (ms; 0: off). */
  SHED_MAX_QUEUE_MS: count(0, 60_000).default(250),
  /** API requests waiting for a place, above which new ones get 503 + Retry-After. */
  SHED_MAX_QUEUED: count(0, 1_000_000).default(1024),
  /** Sheddable API requests started per turn of the event loop; the rest wait for the next turns (0: off). */
  SHED_MAX_PER_TURN: count(0, 1_000_000).default(32),
  /** Ms of synchronous work the sheddable API requests started in one turn may take (0: off; docs/limits.md). */
  SHED_MAX_TURN_MS: count(0, 1_000).default(0),
  /** While the queue refuses, answer the 503 at the socket, before Fastify (docs/limits.md; 0: in the hook). */
  SHED_REFUSE_AT_SOCKET: boolFlag.default(true),
  /** Trust X-Forwarded-For (client address for rate limits) only behind a reverse proxy. */
  TRUST_PROXY: boolFlag.default(false),
  /**
   * The platform token's chain (docs/chain.md): `embedded` runs anvil in DATA_DIR/chain, `off` runs none.
   * CHAIN_RPC_URL with the seven addresses switches to a real chain. Unset: embedded, except with
   * NODE_ENV=test (tests build hundreds of apps; only the chain tests turn it on).
   */
  CHAIN: z.enum(['embedded', 'off'], { message: 'must be embedded or off' }).optional(),
  CHAIN_ID: count(1, 2 ** 53 - 1).default(42161),
  CHAIN_RPC_URL: z
    .string()
    .regex(/^https?:\/\/\S+$/, 'must be an http:// or https:// URL')
    .optional(),
  TOKEN_ADDRESS: chainAddress.optional(),
  SALE_ADDRESS: chainAddress.optional(),
  POOL_ADDRESS: chainAddress.optional(),
  PLANS_ADDRESS: chainAddress.optional(),
  USDT_ADDRESS: chainAddress.optional(),
  USDC_ADDRESS: chainAddress.optional(),
  /** Block explorer of a real chain (transactions at `{url}/tx/{hash}`); the embedded chain has its own view. */
  CHAIN_EXPLORER_URL: z
    .string()
    .regex(/^https?:\/\/\S+$/, 'must be an http:// or https:// URL')
    .transform((u) => u.replace(/\/+$/, ''))
    .optional(),
  /** Blocks on top of a plan payment before it activates the plan. */
  CHAIN_CONFIRMATIONS: count(1, 1_000).default(2),
  /** Starting a bot needs an active plan, with per-plan limits of running bots (docs/plans.md). */
  PLANS_REQUIRED: boolFlag.default(false),
});

/** The contracts a real chain is given by (all or none). */
export const CHAIN_ADDRESS_KEYS = [
  'TOKEN_ADDRESS',
  'SALE_ADDRESS',
  'POOL_ADDRESS',
  'PLANS_ADDRESS',
  'USDT_ADDRESS',
  'USDC_ADDRESS',
] as const;

export type ChainMode = 'embedded' | 'rpc' | 'off';

/** Where the platform token lives (docs/chain.md). */
export interface ChainConfig {
  mode: ChainMode;
  chainId: number;
  /** The node's own URL (rpc mode); the embedded node's is known once it runs. */
  rpcUrl: string | null;
  /** Real chain: the configured contracts; embedded: null (deployed and recorded on first start). */
  addresses: {
    token: `0x${string}`;
    sale: `0x${string}`;
    pool: `0x${string}`;
    plans: `0x${string}`;
    usdt: `0x${string}`;
    usdc: `0x${string}`;
  } | null;
  explorerUrl: string | null;
  confirmations: number;
  /** The embedded node's folder (state file, pid file). */
  dir: string;
}

export type Env = z.infer<typeof envSchema>;

export interface Config extends Env {
  dataDir: string;
  /** MASTER_KEY_FILE resolved: beside DATA_DIR, not inside it. */
  masterKeyFile: string;
  /** PUBLIC_URL, or http://localhost:PORT; no trailing slash. */
  publicUrl: string;
  mailOutboxDir: string;
  webDistDir: string;
  isProduction: boolean;
  chain: ChainConfig;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

const repoRoot = path.resolve(import.meta.dirname, '../../..');

/** Reads and validates the environment; throws ConfigError naming every bad variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  // Empty strings count as unset so `FOO= npm start` falls back to the default.
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = envSchema.safeParse(cleaned);
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`));
  }
  const e = parsed.data;
  if (e.SIMULATOR_CONTROL && e.NODE_ENV === 'production') {
    throw new ConfigError(['SIMULATOR_CONTROL: the simulator control is refused in production mode']);
  }
  if (e.BINANCE_EMULATOR_URL && e.NODE_ENV === 'production') {
    throw new ConfigError(['BINANCE_EMULATOR_URL: the exchange emulator is refused in production mode']);
  }
  if (e.BYBIT_EMULATOR_URL && e.NODE_ENV === 'production') {
    throw new ConfigError(['BYBIT_EMULATOR_URL: the exchange emulator is refused in production mode']);
  }
  const dataDir = path.resolve(e.DATA_DIR);
  const chain = chainConfig(e, dataDir);
  return {
    ...e,
    dataDir,
    masterKeyFile: path.resolve(e.MASTER_KEY_FILE ?? `${dataDir}.master.key`),
    publicUrl: e.PUBLIC_URL ?? `http://localhost:${e.PORT}`,
    mailOutboxDir: path.resolve(e.MAIL_OUTBOX_DIR ?? path.join(dataDir, 'outbox')),
    webDistDir: path.resolve(e.WEB_DIST_DIR ?? path.join(repoRoot, 'apps/web/dist')),
    isProduction: e.NODE_ENV === 'production',
    chain,
  };
}

/** The chain keys checked together: a real chain needs its URL and all six addresses. */
function chainConfig(e: Env, dataDir: string): ChainConfig {
  const given = CHAIN_ADDRESS_KEYS.filter((k) => e[k] !== undefined);
  const problems: string[] = [];
  if (e.CHAIN_RPC_URL && given.length < CHAIN_ADDRESS_KEYS.length) {
    const missing = CHAIN_ADDRESS_KEYS.filter((k) => e[k] === undefined).join(', ');
    problems.push(`CHAIN_RPC_URL: a real chain needs all six contract addresses; missing ${missing}`);
  }
  if (!e.CHAIN_RPC_URL && given.length > 0) {
    problems.push(`${given.join(', ')}: contract addresses need CHAIN_RPC_URL (the real chain they are on)`);
  }
  if (e.CHAIN === 'embedded' && e.CHAIN_RPC_URL) {
    problems.push(
      'CHAIN: embedded runs its own node; unset CHAIN_RPC_URL, or unset CHAIN to use the real chain',
    );
  }
  const off = e.CHAIN === 'off' || (e.CHAIN === undefined && !e.CHAIN_RPC_URL && e.NODE_ENV === 'test');
  if (e.PLANS_REQUIRED && off) {
    problems.push('PLANS_REQUIRED: plans are paid on the chain, which is off (CHAIN=off)');
  }
  if (problems.length > 0) throw new ConfigError(problems);
  const mode: ChainMode = off ? 'off' : e.CHAIN_RPC_URL ? 'rpc' : 'embedded';
  const addresses =
    mode === 'rpc'
      ? {
          token: e.TOKEN_ADDRESS!,
          sale: e.SALE_ADDRESS!,
          pool: e.POOL_ADDRESS!,
          plans: e.PLANS_ADDRESS!,
          usdt: e.USDT_ADDRESS!,
          usdc: e.USDC_ADDRESS!,
        }
      : null;
  return {
    mode,
    chainId: e.CHAIN_ID,
    rpcUrl: mode === 'rpc' ? e.CHAIN_RPC_URL! : null,
    addresses,
    explorerUrl: mode === 'rpc' ? (e.CHAIN_EXPLORER_URL ?? 'https://arbiscan.io') : null,
    confirmations: e.CHAIN_CONFIRMATIONS,
    dir: path.join(dataDir, 'chain'),
  };
}
