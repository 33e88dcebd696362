import { EXCHANGES } from '@bytx/contract';
import type { VenueError } from '../../errors';
import { errorOfKind, readAnswer, retryAfterMs, ruleMatches, type ErrorRule } from './rules';
import { RULES_A } from './tables-a';
import { RULES_B } from './tables-b';

export { readAnswer, retryAfterMs, type ErrorKind, type ErrorRule } from './rules';

/** Every exchange's error rules, by ccxt id. */
export const EXCHANGE_ERROR_RULES: Readonly<Record<string, readonly ErrorRule[]>> = {
  ...RULES_A,
  ...RULES_B,
};

/**
 * Our error for what the exchange answered, by its own rules (before ccxt's class, which is wrong or
 * missing for some codes); undefined when no rule matches. `exchange` is our catalogue key.
 */
export function translateByExchange(
  err: unknown,
  exchange: string,
  headers?: Record<string, unknown>,
): VenueError | undefined {
  const ccxtId = EXCHANGES.find((e) => e.key === exchange)?.ccxtId ?? exchange;
  const rules = EXCHANGE_ERROR_RULES[ccxtId];
  if (!rules || !(err instanceof Error)) return undefined;
  const answer = { ...readAnswer(err.message), ccxtClass: err.name };
  const rule = rules.find((r) => ruleMatches(r, answer));
  if (!rule) return undefined;
  const retryAfter = rule.kind === 'rate_limit' ? retryAfterMs(headers) : undefined;
  return errorOfKind(rule.kind, exchange, answer.text, err, retryAfter);
}
