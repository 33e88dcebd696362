import type { FastifyPluginAsync } from 'fastify';
import type { AppContext } from '../context';
import { accountsRoutes } from './accounts/routes';
import { forumRoutes } from './forum/routes';
import { healthRoutes } from './health/routes';
import { marketRoutes } from './market/routes';
import { exchangesRoutes } from './exchanges/routes';
import { walletRoutes } from './wallet/routes';
import { botsRoutes } from './bots/routes';
import { backtestRoutes } from './backtest/routes';
import { chainRoutes } from './chain/routes';
import { tradingRoutes } from './trading/routes';

export interface AppModule {
  name: string;
  plugin: FastifyPluginAsync<{ ctx: AppContext }>;
}

/**
 * Every feature module, registered in this order. Each lives in `modules/<area>/` with
 * `routes.ts` (thin) -> `*.service.ts` -> `*.repository.ts`, and owns its schema file and
 * migration range (docs/database.md).
 */
export const modules: AppModule[] = [
  { name: 'health', plugin: healthRoutes },
  { name: 'market', plugin: marketRoutes },
  { name: 'accounts', plugin: accountsRoutes },
  { name: 'forum', plugin: forumRoutes },
  { name: 'exchanges', plugin: exchangesRoutes },
  { name: 'wallet', plugin: walletRoutes },
  { name: 'bots', plugin: botsRoutes },
  // After bots: its orders are bots of kind 'manual', run by the bots module's runner.
  { name: 'trading', plugin: tradingRoutes },
  { name: 'backtest', plugin: backtestRoutes },
  { name: 'chain', plugin: chainRoutes },
];
