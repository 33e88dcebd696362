import type { TFunction } from 'i18next';
import { ARBITRAGE_MESSAGES } from '../api/arbitrage';

/**
 * A server text of the arbitrage calls in the page's language: a text that is exactly one of the
 * contract's messages is read from `arbitrage.messages.<key>`; any other (one with its numbers filled
 * in) is shown as the server wrote it.
 */
export function serverText(t: TFunction, message: string): string {
  const key = (Object.keys(ARBITRAGE_MESSAGES) as (keyof typeof ARBITRAGE_MESSAGES)[]).find(
    (k) => ARBITRAGE_MESSAGES[k] === message,
  );
  const path = `arbitrage.messages.${key}`;
  return key && t(path) !== path ? t(path) : message;
}
