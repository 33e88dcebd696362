import { browserWallet } from '../../shared/onchain/wallet';
import { EarningsError, fetchLinkMessage, type WalletProof } from './api/earnings';

/** The message as the hex of its UTF-8 bytes: what `personal_sign` takes (EIP-191). */
export const utf8Hex = (text: string) =>
  `0x${Array.from(new TextEncoder().encode(text), (b) => b.toString(16).padStart(2, '0')).join('')}`;

const rejected = (err: unknown) => {
  const e = err as { code?: unknown; message?: unknown } | null;
  return e?.code === 4001 || (typeof e?.message === 'string' && /reject|denied|cancel/i.test(e.message));
};

/**
 * The proof that the user holds `address` (issue 37, EIP-4361 style): the browser wallet must hold the
 * address; the server's sign-in message is signed with `personal_sign`. Refusals are EarningsErrors
 * with the reader's text (`t`), shown in the page's error modal.
 */
export async function proveWallet(
  address: string,
  t: (key: string, vars?: Record<string, string>) => string,
): Promise<WalletProof> {
  const eth = browserWallet();
  if (!eth) throw new EarningsError(t('earnings.sign.noWallet'), false);
  let accounts: unknown;
  try {
    accounts = await eth.request({ method: 'eth_requestAccounts' });
  } catch (err) {
    throw new EarningsError(t(rejected(err) ? 'earnings.sign.rejected' : 'earnings.sign.failed'), false);
  }
  const held = Array.isArray(accounts) ? accounts.filter((a): a is string => typeof a === 'string') : [];
  if (!held.some((a) => a.toLowerCase() === address.toLowerCase())) {
    throw new EarningsError(t('earnings.sign.otherAccount', { address }), false);
  }
  const { nonce, message } = await fetchLinkMessage(address);
  let signature: unknown;
  try {
    signature = await eth.request({ method: 'personal_sign', params: [utf8Hex(message), address] });
  } catch (err) {
    throw new EarningsError(t(rejected(err) ? 'earnings.sign.rejected' : 'earnings.sign.failed'), false);
  }
  if (typeof signature !== 'string') throw new EarningsError(t('earnings.sign.failed'), false);
  return { nonce, signature };
}
