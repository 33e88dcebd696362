import { EARNINGS_MESSAGES } from '@bytx/contract';
import { GENERIC_MESSAGE, SWITCH_MESSAGE } from '../api/earnings';

/** The server's texts of spec part 1 §8 → their catalog keys, so Spanish readers get them in Spanish. */
const KNOWN: Record<string, string> = {
  'Invalid wallet address': 'earnings.messages.invalidAddress',
  [SWITCH_MESSAGE]: 'earnings.messages.switch',
  '❌ Wallet already connected in another session.': 'earnings.messages.taken',
  [GENERIC_MESSAGE]: 'earnings.messages.generic',
  [EARNINGS_MESSAGES.signatureRequired]: 'earnings.messages.signatureRequired',
  [EARNINGS_MESSAGES.signatureInvalid]: 'earnings.messages.signatureInvalid',
};

/** A server message in the reader's language when it is one of the spec's; as sent otherwise. */
export const localMessage = (t: (k: string) => string, message: string) => {
  const key = KNOWN[message];
  return key ? t(key) : message;
};
