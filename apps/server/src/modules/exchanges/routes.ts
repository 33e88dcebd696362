import os from 'node:os';
import {
  conectarExchangeBody,
  conectarExchangeResponse,
  eliminarExchangeBody,
  eliminarExchangeResponse,
  estadoConexionBody,
  estadoConexionResponse,
  exchangeCapabilitiesResponse,
  exchangeConnectionsResponse,
} from '@bytx/contract';
import { exchangeCapabilities } from '@bytx/venues';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppContext } from '../../context';
import { READ_ONLY } from '../../lib/read-only';
import { currentUser } from '../../plugins/auth';
import { AddressesRepository } from '../wallet/addresses.repository';
import { connectionRowsFor } from './connections-cache';
import { ConnectionsRepository } from './connections.repository';
import { ConnectionsService } from './connections.service';
import { KeyRechecker } from './key-recheck';
import { DbPaperStore } from './paper-store';
import { defaultVenueFactory } from './venue-factory';
import { DbVenueRegistry } from './venue-registry';

const bearer = [{ bearer: [] }];

/**
 * Exchange connections (spec part 1 §7) and ctx.services.venues, the registry every other module
 * gets a user's Venue from.
 */
export const exchangesRoutes: FastifyPluginAsyncZod<{ ctx: AppContext }> = async (app, { ctx }) => {
  // Connection rows kept in memory until the next write (connections-cache.ts): only where this process
  // is the database's only writer (the embedded one).
  if (ctx.database.driver === 'pglite') {
    connectionRowsFor(ctx.db).enable((ctx.db as unknown as { $client?: unknown }).$client);
  }
  const repo = new ConnectionsRepository(ctx.db);
  const store = new DbPaperStore(ctx.db);
  const registry = new DbVenueRegistry(repo, store, ctx.secretBox, defaultVenueFactory(ctx));
  const service = new ConnectionsService(
    repo,
    registry,
    store,
    new AddressesRepository(ctx.db),
    ctx.secretBox,
    ctx.log,
    ctx.config.MARKET_DATA === 'simulated',
    ctx.hooks.beforeConnectionChange,
  );
  ctx.services.venues = registry;
  // Live keys checked again daily and on every resume (issue 38 point 9; key-recheck.ts).
  const keys = new KeyRechecker({
    database: ctx.database,
    repo,
    registry,
    hooks: ctx.hooks,
    log: ctx.log,
    holder: `${os.hostname()}:${process.pid}:${Math.random().toString(36).slice(2, 8)}`,
  });
  ctx.services.keys = keys;
  if (ctx.config.BOT_RUNNER) app.addHook('onReady', async () => keys.start());
  app.addHook('onClose', async () => keys.close());
  ctx.hooks.beforeUserDelete.push((userId) => registry.closeUser(userId));
  app.addHook('onClose', async () => registry.closeAll());

  app.post(
    '/api/estado_conexion',
    {
      onRequest: app.authenticate,
      schema: {
        ...READ_ONLY,
        tags: ['exchanges'],
        summary: 'Which of the 20 exchanges the user has connected (paper or live)',
        security: bearer,
        body: estadoConexionBody,
        response: { 200: estadoConexionResponse },
      },
    },
    async (request) => ({ conexiones: await service.status(currentUser(request).id) }),
  );

  app.post(
    '/api/conectar_exchange',
    {
      onRequest: app.authenticate,
      schema: {
        tags: ['exchanges'],
        summary: 'Connect live API keys (checked with a balance call) or a paper account (mode "paper")',
        security: bearer,
        body: conectarExchangeBody,
        response: { 200: conectarExchangeResponse },
      },
    },
    async (request) => {
      const { exchange, mode, apiKey, apiSecret, password } = request.body;
      const done = await service.connect(currentUser(request).id, {
        exchange,
        mode,
        apiKey,
        apiSecret,
        password,
      });
      return {
        success: true,
        exchange,
        mode: done.mode,
        message: done.message,
        ...(done.withdraw_check ? { withdraw_check: done.withdraw_check } : {}),
        ...(done.notice ? { notice: done.notice } : {}),
      };
    },
  );

  app.post(
    '/api/eliminar_exchange',
    {
      onRequest: app.authenticate,
      schema: {
        tags: ['exchanges'],
        summary: 'Remove a connection (a paper account is deleted with it)',
        security: bearer,
        body: eliminarExchangeBody,
        response: { 200: eliminarExchangeResponse },
      },
    },
    async (request) => {
      const removed = await service.remove(currentUser(request).id, request.body.exchange);
      return { success: true, message: removed ? 'Exchange removed.' : 'This exchange was not connected.' };
    },
  );

  app.get(
    '/api/exchanges/capabilities',
    {
      schema: {
        tags: ['exchanges'],
        summary:
          'What each exchange supports with live keys (spot, perpetual, inverse, margin, leverage, client ids, lookups), derived from ccxt and our per-exchange rules',
        response: { 200: exchangeCapabilitiesResponse },
      },
    },
    async () => ({ success: true as const, exchanges: exchangeCapabilities() }),
  );

  app.get(
    '/api/exchanges/connections',
    {
      onRequest: app.authenticate,
      schema: {
        tags: ['exchanges'],
        summary: "The user's connected exchanges with their mode (never any key material)",
        security: bearer,
        response: { 200: exchangeConnectionsResponse },
      },
    },
    async (request) => ({ success: true as const, connections: await service.list(currentUser(request).id) }),
  );
};
