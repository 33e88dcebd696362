import {
  chainInfoResponse,
  chainTxResponse,
  deleteWalletBody,
  deleteWalletResponse,
  earningsBody,
  earningsHistoryQuery,
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
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../context';
import { tooManyRequests } from '../../lib/errors';
import { currentUser } from '../../plugins/auth';
import { ChainService } from './chain.service';
import { EarningsService } from './earnings.service';
import { ChainIndexer } from './indexer';
import { PlansService } from './plans.service';
import { ChainReader } from './reader';
import { ChainRepository } from './repository';
import { proxyRpc } from './rpc-proxy';
import { ChainRuntime } from './runtime';

const tags = ['chain'];

export interface ChainModule {
  runtime: ChainRuntime;
  reader: ChainReader;
  indexer: ChainIndexer;
  earnings: EarningsService;
  plans: PlansService;
  chain: ChainService;
  repo: ChainRepository;
}

/** The chain module of each app (tests reach the runtime, the indexer and the reads through it). */
export const chainModules = new WeakMap<AppContext, ChainModule>();

/** Requests a client address may send to the RPC proxy a minute (a wallet polls a few a second at most). */
export const RPC_PROXY_RATE = { max: 1_200, timeWindow: 60_000 };

/** The origin a request reached us at (the RPC proxy URL a browser wallet is given). */
const originOf = (req: FastifyRequest) => `${req.protocol}://${req.host}`;

/**
 * The platform token (issue 17, docs/chain.md, docs/plans.md): the chain's start and stop with the app,
 * the indexer, the earnings pool's calls of spec part 1 §7, plans, faucet, transaction view, RPC proxy.
 */
export const chainRoutes: FastifyPluginAsyncZod<{ ctx: AppContext }> = async (app, { ctx }) => {
  const cfg = ctx.config.chain;
  const repo = new ChainRepository(ctx.db);
  const runtime = new ChainRuntime(cfg, repo, ctx.log);
  const reader = new ChainReader(runtime);
  const indexer = new ChainIndexer(runtime, repo, reader, ctx.log, {
    intervalMs: cfg.mode === 'embedded' ? 2_000 : 15_000,
    keeperMs: cfg.mode === 'embedded' ? 60_000 : 0,
    snapshotMs: 600_000,
  });
  const earnings = new EarningsService(runtime, reader, repo, ctx.log);
  const plans = new PlansService(runtime, reader, repo, ctx.config.PLANS_REQUIRED, () => indexer.head);
  const chain = new ChainService(runtime, reader, repo, ctx.log);
  chainModules.set(ctx, { runtime, reader, indexer, earnings, plans, chain, repo });

  if (cfg.mode !== 'off') {
    app.addHook('onReady', async () => {
      await runtime.start();
      if (runtime.ready) indexer.start();
    });
    app.addHook('onClose', async () => {
      await indexer.stop();
      await runtime.stop();
    });
  }
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
    async (req) => chain.info(originOf(req)),
  );

  app.post(
    '/api/chain/rpc',
    {
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
        summary: 'Connect (or switch with force) the earnings wallet and read its stake, APY and rewards',
        body: earningsBody,
        response: { 200: earningsResponse },
      },
    },
    async (req) => earnings.earnings(currentUser(req).id, req.body.address, req.body.force === true),
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
    async (req) => ({ success: true as const, address: await earnings.wallet(currentUser(req).id) }),
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
    async (req) => plans.view(currentUser(req).id),
  );
};
