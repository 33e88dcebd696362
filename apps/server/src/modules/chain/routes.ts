import {
  chainInfoResponse,
  chainTxResponse,
  deleteWalletBody,
  deleteWalletResponse,
  earningsBody,
  earningsHistoryQuery,
  earningsNonceBody,
  earningsNonceResponse,
  earningsHistoryResponse,
  earningsResponse,
  earningsWalletResponse,
  faucetBody,
  faucetResponse,
  plansQuery,
  plansResponse,
  poolStateResponse,
  RPC_PROXY_LIMITS,
  txHashParams,
} from '@bytx/contract';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../context';
import { tableCache } from '../../db/table-cache';
import { sha256 } from '../../lib/crypto';
import { tooManyRequests } from '../../lib/errors';
import { bearerToken, currentUser } from '../../plugins/auth';
import { ChainService } from './chain.service';
import { EarningsService, type HistoryRows } from './earnings.service';
import { ChainIndexer } from './indexer';
import { PlansService, type PlanRows } from './plans.service';
import { ChainReader } from './reader';
import { ChainRepository } from './repository';
import { proxyRpc } from './rpc-proxy';
import { WindowCounter } from './session-limit';
import { ChainRuntime } from './runtime';
import { markStart } from '../../lib/start-phases';

const tags = ['chain'];

export interface ChainModule {
  runtime: ChainRuntime;
  reader: ChainReader;
  indexer: ChainIndexer;
  earnings: EarningsService;
  plans: PlansService;
  chain: ChainService;
  repo: ChainRepository;
  /**
   * Settles once the chain's start is over, up or failed (at once with CHAIN=off). The app serves
   * before that (issue 45 point 5): the chain's calls answer 503 until `runtime.ready`.
   */
  started: Promise<void>;
}

/** The chain module of each app (tests reach the runtime, the indexer and the reads through it). */
export const chainModules = new WeakMap<AppContext, ChainModule>();

/**
 * Requests a client address may send to the RPC proxy a minute: 600 (10 a second; a wallet polls about
 * one a second, a purchase adds a dozen). A request carrying a session also counts against that
 * session's 600, however many addresses it comes from (issue 37).
 */
export const RPC_PROXY_RATE = { max: 600, timeWindow: 60_000 };
export const RPC_PROXY_SESSION_RATE = { max: 600, timeWindow: 60_000 };
/** Sign-in messages a client address may ask for a minute (linking a wallet takes one). */
export const WALLET_NONCE_RATE = { max: 20, timeWindow: 60_000 };

/**
 * The platform token (issue 17, docs/chain.md, docs/plans.md): the chain's start and stop with the app,
 * the indexer, the earnings pool's calls of spec part 1 §7, plans, faucet, transaction view, RPC proxy.
 */
export const chainRoutes: FastifyPluginAsyncZod<{ ctx: AppContext }> = async (app, { ctx }) => {
  const cfg = ctx.config.chain;
  const repo = new ChainRepository(ctx.db);
  const runtime = new ChainRuntime(cfg, repo, ctx.log, ctx.secretBox);
  const reader = new ChainReader(runtime);
  const indexer = new ChainIndexer(runtime, repo, reader, ctx.log, {
    intervalMs: cfg.mode === 'embedded' ? 2_000 : 15_000,
    keeperMs: cfg.mode === 'embedded' ? 60_000 : 0,
    snapshotMs: 600_000,
  });

  /** A user's deletion takes their chain rows with it (foreign keys): it drops these caches too. */
  const userDelete = String.raw`\bdelete\s+from\s+"?users\b`;
  const plans = new PlansService(
    runtime,
    reader,
    repo,
    ctx.config.PLANS_REQUIRED,
    () => indexer.head,
    tableCache<PlanRows>(
      ctx,
      new RegExp(String.raw`\bchain_(payment_refs|plans|events)\b|${userDelete}`, 'i'),
    ),
  );
  const earnings = new EarningsService(
    runtime,
    reader,
    repo,
    ctx.log,
    ctx.config.publicUrl,
    tableCache<HistoryRows>(
      ctx,
      new RegExp(String.raw`\bchain_(snapshots|events|wallets)\b|${userDelete}`, 'i'),
    ),
  );
  /** GET /api/earnings/wallet's address per user, kept until the next write to chain_wallets. */
  const wallets = tableCache<string | null>(
    ctx,
    new RegExp(String.raw`\bchain_wallets\b|${userDelete}`, 'i'),
  );
  const chain = new ChainService(runtime, reader, repo, ctx.log);
  // The embedded node's start (anvil, and its contract checks or deployment) took ~30 % of a restart
  // when it was awaited here: Fastify serves only after every onReady hook. It now runs in the
  // background; its calls answer 503 until it is up, as they do when it fails to start.
  let begin: () => void = () => undefined;
  let begun = false;
  const started = new Promise<void>((resolve) => (begin = resolve)).then(async () => {
    if (cfg.mode === 'off') return;
    await runtime.start();
    markStart('chain', 'chain');
    if (runtime.ready) indexer.start();
  });
  chainModules.set(ctx, { runtime, reader, indexer, earnings, plans, chain, repo, started });

  if (cfg.mode !== 'off') {
    app.addHook('onReady', async () => {
      begun = true;
      begin();
    });
    app.addHook('onClose', async () => {
      // A close during the start waits for it: the node it spawns must not outlive the app.
      if (begun) await started.catch(() => undefined);
      await indexer.stop();
      await runtime.stop();
    });
  } else begin();
  const auth = { onRequest: app.authenticate };

  app.get(
    '/api/chain',
    {
      schema: {
        tags,
        summary:
          'Where the token chain is: mode, chain id, RPC URL for a browser wallet, explorer, contracts',
        response: { 200: chainInfoResponse },
      },
    },
    // The proxy's URL comes from PUBLIC_URL, never from the request's Host header (issue 37): a forged
    // Host must not make the page hand a wallet someone else's node.
    async () => chain.info(ctx.config.publicUrl),
  );

  // Per session (the bearer token's hash; a request without one counts per address only).
  const sessionCounter = new WindowCounter(RPC_PROXY_SESSION_RATE.max, RPC_PROXY_SESSION_RATE.timeWindow);
  const rpcPerSession = async (req: FastifyRequest, reply: FastifyReply) => {
    const token = bearerToken(req);
    if (token === null) return;
    const wait = sessionCounter.hit(sha256(token));
    if (wait !== null) {
      void reply.header('retry-after', String(wait));
      throw tooManyRequests('Too many RPC requests from your session. Please slow down.');
    }
  };
  app.post(
    '/api/chain/rpc',
    {
      // Beside the route's per-address limit (config.rateLimit): both count, before the body is read.
      onRequest: [rpcPerSession],
      bodyLimit: RPC_PROXY_LIMITS.maxBodyBytes,
      config: {
        rateLimit: {
          ...RPC_PROXY_RATE,
          errorResponseBuilder: () =>
            tooManyRequests('Too many RPC requests from your address. Please slow down.'),
        },
      },
      schema: {
        tags,
        summary: `JSON-RPC proxy to the embedded chain: reads and eth_sendRawTransaction only; batches of at most ${RPC_PROXY_LIMITS.maxBatch}`,
        body: z.unknown(),
      },
    },
    async (req, reply) => {
      const target = runtime.proxyTarget();
      const { status, payload } = await proxyRpc(target, req.body);
      return reply.status(status).send(payload);
    },
  );

  app.get(
    '/api/chain/tx/:hash',
    {
      schema: {
        tags,
        summary: 'A transaction as the chain sees it: status, block, confirmations, decoded events',
        params: txHashParams,
        response: { 200: chainTxResponse },
      },
    },
    async (req) => chain.tx(req.params.hash),
  );

  app.post(
    '/api/chain/faucet',
    {
      ...auth,
      schema: {
        tags,
        summary:
          'Embedded chain only: 1,000 test USDT, 1,000 test USDC and 1 ETH to an address, once per 10 minutes',
        body: faucetBody,
        response: { 200: faucetResponse },
      },
    },
    async (req) => chain.faucet(currentUser(req).id, req.body.address),
  );

  app.post(
    '/api/earnings',
    {
      ...auth,
      schema: {
        tags,
        summary:
          'Connect (or switch with force) the earnings wallet and read its stake, APY and rewards; a new address needs `nonce` and `signature` (POST /api/earnings/nonce)',
        body: earningsBody,
        response: { 200: earningsResponse },
      },
    },
    async (req) =>
      earnings.earnings(currentUser(req).id, req.body.address, req.body.force === true, {
        nonce: req.body.nonce,
        signature: req.body.signature,
      }),
  );

  app.post(
    '/api/earnings/nonce',
    {
      ...auth,
      config: {
        rateLimit: {
          ...WALLET_NONCE_RATE,
          errorResponseBuilder: () =>
            tooManyRequests('Too many sign-in messages asked for. Please wait a minute.'),
        },
      },
      schema: {
        tags,
        summary:
          'The EIP-4361 message to sign with a wallet to link it to the account (single use, 10 minutes)',
        body: earningsNonceBody,
        response: { 200: earningsNonceResponse },
      },
    },
    async (req) => earnings.nonce(currentUser(req).id, req.body.address),
  );

  app.get(
    '/api/earnings/wallet',
    {
      ...auth,
      schema: {
        tags,
        summary: 'The earnings wallet linked to the user, if any',
        querystring: plansQuery,
        response: { 200: earningsWalletResponse },
      },
    },
    async (req) => {
      const userId = currentUser(req).id;
      return { success: true as const, address: await wallets.get(userId, () => earnings.wallet(userId)) };
    },
  );

  app.get(
    '/api/earnings/history',
    {
      ...auth,
      schema: {
        tags,
        summary: 'Chart points: the pool’s size (every 10 minutes) and the user’s rewards over time',
        querystring: earningsHistoryQuery,
        response: { 200: earningsHistoryResponse },
      },
    },
    async (req) => earnings.history(currentUser(req).id, req.query.days),
  );

  app.post(
    '/api/delete_wallet',
    {
      ...auth,
      schema: {
        tags,
        summary: 'Disconnect the earnings wallet',
        body: deleteWalletBody,
        response: { 200: deleteWalletResponse },
      },
    },
    async (req) => earnings.deleteWallet(currentUser(req).id),
  );

  app.get(
    '/api/pool_state',
    {
      schema: {
        tags,
        summary: 'The rewards pool’s available tokens and APY (read from the chain at most once a minute)',
        response: { 200: poolStateResponse },
      },
    },
    async () => earnings.poolState(),
  );

  app.get(
    '/api/plans',
    {
      ...auth,
      schema: {
        tags,
        summary: 'Plans with prices in USD and tokens, the payment ref, the active plan and pending payments',
        querystring: plansQuery,
        response: { 200: plansResponse },
      },
    },
    async (req, reply) =>
      (reply as FastifyReply)
        .type('application/json; charset=utf-8')
        .send(await plans.viewBody(currentUser(req).id)),
  );
};
