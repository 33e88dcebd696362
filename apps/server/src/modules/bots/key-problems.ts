import type { FastifyBaseLogger } from 'fastify';
import { keyProblemDetail } from '../exchanges/key-recheck';
import { exchangeKeyOf } from '@bytx/contract';
import type { BotRow, BotsRepository } from './bots.repository';
import type { BotRunner } from './runner';

/**
 * What a live key's re-check (issue 38 point 9, modules/exchanges/key-recheck.ts) means for the user's bots
 * on that exchange (the arbitrage bot's second exchange counts, and manual orders too):
 *
 * - revoked (the exchange refuses the key): paused as `auth_failed`, as when an order meets a refused key;
 *   the problem watch tries the key again every 30 s and resumes them when it works;
 * - can withdraw: paused as `key_can_withdraw` (the platform only runs on trade-only keys, DESIGN.md §6),
 *   with the reason in the event log; resumed when a later check finds the key trade-only again (a new key
 *   is a reconnect, which stops the bots of the old one anyway);
 * - good: the bots paused for `key_can_withdraw` resume; nothing else changes.
 *
 * Pausing keeps the bot active with its lots (ProblemWatch.pause): the bot screens show the problem in
 * en/es (BOT_PROBLEMS in the contract) and the user can still stop it keeping assets.
 */
export function keyCheckHandler(repo: BotsRepository, runner: BotRunner, log: FastifyBaseLogger) {
  return async (userId: string, exchange: string, problem: 'revoked' | 'can_withdraw' | null) => {
    const key = exchangeKeyOf(exchange);
    if (!key) return;
    const follows = (r: BotRow) => {
      if (r.exchange === key) return true;
      try {
        const extra = runner.strategyOf(r.kind)?.extraMarkets?.(r.state as object) ?? [];
        return extra.some((m) => m.exchange === key);
      } catch {
        return false;
      }
    };
    const rows = (await repo.listByUser(userId, 'active', undefined, true)).filter(follows);
    for (const r of rows) {
      try {
        if (problem === null) {
          if (r.problem === 'key_can_withdraw') await runner.unpause(r.id, 'key_can_withdraw');
          continue;
        }
        const code = problem === 'revoked' ? 'auth_failed' : 'key_can_withdraw';
        // A bot already paused for this, or one that cannot run at all, keeps its problem; a key that can
        // withdraw outranks a refused one (a working key would otherwise resume the bot).
        if (r.problem === code || r.problem === 'cannot_run') continue;
        if (r.problem === 'key_can_withdraw' && code === 'auth_failed') continue;
        await runner.pause(r.id, code, keyProblemDetail(key, problem));
      } catch (err) {
        log.error({ err, botId: r.id }, 'could not pause or resume a bot after its key was checked');
      }
    }
  };
}
