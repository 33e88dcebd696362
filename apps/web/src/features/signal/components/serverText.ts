import type { TFunction } from 'i18next';
import { SIGNAL_MESSAGES } from '../api/signal';

/**
 * A server text of the signal calls in the page's language: a text that is exactly one of the
 * contract's messages is read from `signal.messages.<key>`; any other (one with its numbers filled in)
 * is shown as the server wrote it.
 */
export function serverText(t: TFunction, message: string): string {
  const key = (Object.keys(SIGNAL_MESSAGES) as (keyof typeof SIGNAL_MESSAGES)[]).find(
    (k) => SIGNAL_MESSAGES[k] === message,
  );
  const path = `signal.messages.${key}`;
  return key && t(path) !== path ? t(path) : message;
}
