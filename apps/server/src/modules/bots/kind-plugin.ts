import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppContext } from '../../context';
import type { BotsRepository } from './bots.repository';
import type { BotsService } from './bots.service';
import type { BotRunner } from './runner';

/** What a bot kind's routes get from the bots module: one repository, one runner, the shared service. */
export interface KindPluginOptions {
  ctx: AppContext;
  repo: BotsRepository;
  runner: BotRunner;
  bots: BotsService;
}

export type KindPlugin = FastifyPluginAsyncZod<KindPluginOptions>;
