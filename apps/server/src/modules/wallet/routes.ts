import {
  addressBody,
  addressMapResponse,
  addressQuery,
  addressResponse,
  derivativesWalletResponse,
  walletQuery,
  walletResetBody,
  walletResetResponse,
  walletResponse,
} from '@bytx/contract';
import type { FastifyReply } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppContext } from '../../context';
import { tableCache } from '../../db/table-cache';
import { serializeAs } from '../../lib/serialize';
import { currentUser } from '../../plugins/auth';
import { ConnectionsRepository } from '../exchanges/connections.repository';
import { AddressesRepository } from './addresses.repository';
import { resetPaperAccount } from './paper-reset';
import { WalletService } from './wallet.service';

const bearer = [{ bearer: [] }];

/** Wallet calls of spec part 1 §7 on the user's chosen connection (see WalletService). */
export const walletRoutes: FastifyPluginAsyncZod<{ ctx: AppContext }> = async (app, { ctx }) => {
  const service = new WalletService(
    new ConnectionsRepository(ctx.db),
    new AddressesRepository(ctx.db, tableCache(ctx, /\bwallet_addresses\b|\bdelete\s+from\s+"?users\b/i)),
    () => {
      if (!ctx.services.venues) throw new Error('The exchanges module provides ctx.services.venues');
      return ctx.services.venues;
    },
    ctx.log,
    (userId, exchange) => resetPaperAccount(ctx.db, ctx.services.venues!, userId, exchange),
  );

  app.get(
    '/api/wallet',
    {
      onRequest: app.authenticate,
      schema: {
        tags: ['wallet'],
        summary: 'Balances (coin -> total) of the chosen connection; all 26 wallet coins, 0 when none',
        security: bearer,
        querystring: walletQuery,
        response: { 200: walletResponse },
      },
    },
    async (request) => service.balances(currentUser(request).id, request.query.exchange),
  );

  app.get(
    '/api/wallet/derivatives',
    {
      onRequest: app.authenticate,
      schema: {
        tags: ['wallet'],
        summary:
          'Derivatives wallet and open positions (size, entry, mark, margin, liquidation price, funding) of the chosen connection',
        security: bearer,
        querystring: walletQuery,
        response: { 200: derivativesWalletResponse },
      },
    },
    async (request) => service.derivatives(currentUser(request).id, request.query.exchange),
  );

  /**
   * GET /api/address's answers (serialized) by user and exchange, when they follow from the database's
   * rows alone (no connection, a paper one, a live one with every address stored), kept until the next
   * write to the connections or the stored addresses (db/table-cache.ts); a live exchange lookup's
   * answer is never kept (`until` 0).
   */
  const addressAnswers = tableCache<{ body: string; fromRows: boolean }>(
    ctx,
    /\bwallet_addresses\b|\bexchange_connections\b|\bdelete\s+from\s+"?users\b/i,
    { until: (a) => (a.fromRows ? Infinity : 0) },
  );

  app.get(
    '/api/address',
    {
      onRequest: app.authenticate,
      schema: {
        tags: ['wallet'],
        summary: 'Known deposit addresses (symbol -> address) of the chosen connection',
        security: bearer,
        querystring: addressQuery,
        response: { 200: addressMapResponse },
      },
    },
    async (request, reply) => {
      const userId = currentUser(request).id;
      const { exchange } = request.query;
      const { body } = await addressAnswers.get(JSON.stringify([userId, exchange ?? null]), async () => {
        const known = await service.knownAddressesOf(userId, exchange);
        return { body: serializeAs(addressMapResponse, known.addresses), fromRows: known.fromRows };
      });
      return (reply as FastifyReply).type('application/json; charset=utf-8').send(body);
    },
  );

  app.post(
    '/api/wallet/reset',
    {
      onRequest: app.authenticate,
      schema: {
        tags: ['wallet'],
        summary:
          'Reset a paper account to its seed (10,000 USDT): paper only (400 for live), 409 while bots or open orders run on it',
        security: bearer,
        body: walletResetBody,
        response: { 200: walletResetResponse },
      },
    },
    async (request) => service.resetPaper(currentUser(request).id, request.body.exchange),
  );

  app.post(
    '/api/address',
    {
      onRequest: app.authenticate,
      schema: {
        tags: ['wallet'],
        summary: 'Generate (or return) the deposit address of one wallet coin',
        security: bearer,
        body: addressBody,
        response: { 200: addressResponse },
      },
    },
    async (request) =>
      service.generateAddress(
        currentUser(request).id,
        request.body.symbol,
        request.body.exchange,
        request.body.network,
      ),
  );
};
