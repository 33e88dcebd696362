import { z } from 'zod';
import { userIdField } from './common';

/**
 * The platform token's calls (issue 17, docs/chain.md, docs/plans.md): where the chain is, the earnings
 * pool of spec part 1 §7 (`/api/earnings`, `/api/delete_wallet`, `/api/pool_state`), the plans paid in
 * tokens, the embedded chain's faucet, its transaction view and its JSON-RPC proxy.
 *
 * - `GET /api/chain` → {@link ChainInfo} (no session)
 * - `POST /api/chain/rpc` → JSON-RPC 2.0 (embedded chain only; an allow-list, {@link RPC_PROXY_METHODS})
 * - `GET /api/chain/tx/{hash}` → {@link ChainTxResponse} (no session)
 * - `POST /api/chain/faucet` {address} → {@link FaucetResponse} (embedded chain only)
 * - `POST /api/earnings/nonce` {address} → {@link EarningsNonceResponse} (the message to sign to link it)
 * - `POST /api/earnings` {address, force?, nonce?, signature?} → {@link EarningsResponse}
 * - `GET /api/earnings/wallet` → {@link EarningsWalletResponse} (the user's linked wallet, if any)
 * - `GET /api/earnings/history` → {@link EarningsHistoryResponse}
 * - `POST /api/delete_wallet` → `{success}`
 * - `GET /api/pool_state` → {@link PoolStateResponse} (no session)
 * - `GET /api/plans` → {@link PlansResponse}
 *
 * Token amounts are numbers of whole tokens (18 decimals on chain) for display; `*_wei` fields carry the
 * exact base units as decimal strings for transactions.
 */

export const CHAIN_MODES = ['embedded', 'rpc', 'off'] as const;
export type ChainModeName = (typeof CHAIN_MODES)[number];

/** Spec part 1 §8 (earnings texts, verbatim) and our own texts for what the spec leaves open. */
export const EARNINGS_MESSAGES = {
  invalidAddress: 'Invalid wallet address',
  differentWallet: '⚠️ This wallet is different from your current one. Do you want to switch?',
  walletTaken: '❌ Wallet already connected in another session.',
  connectError: 'Error connecting to wallet.',
  connected: 'Wallet connected.',
  walletDeleted: 'Wallet disconnected.',
  noWallet: 'No wallet is connected.',
  /** Linking an address needs a signature from it (issue 37, EIP-4361 style): answered 403. */
  signatureRequired: 'Sign the message in your wallet to prove this address is yours.',
  signatureInvalid:
    'The signature does not prove this address is yours, or the message expired. Please sign again.',
} as const;

/**
 * `code` of an earnings refusal (with the message above), so a client can tell the switch question
 * (`wallet_different`: ask, then send `force: true`) from the other answers.
 */
export const EARNINGS_ERROR_CODES = [
  'invalid_address',
  'wallet_different',
  'wallet_taken',
  'chain_error',
  'chain_off',
  'signature_required',
  'signature_invalid',
] as const;
export type EarningsErrorCode = (typeof EARNINGS_ERROR_CODES)[number];

export const CHAIN_MESSAGES = {
  chainOff: 'The platform token is not available on this server (CHAIN=off).',
  chainNotReady: 'The token chain is not reachable right now. Try again in a moment.',
  embeddedOnly: 'Only the embedded chain has this call.',
  invalidTxHash: 'Invalid transaction hash: 0x and 64 hex digits.',
  txNotFound: 'Transaction not found on this chain.',
  faucetWait: 'The faucet gives test tokens once every 10 minutes. Try again in {minutes} min.',
  faucetDone: 'Sent 1,000 test USDT, 1,000 test USDC and 1 ETH.',
  faucetFailed: 'The faucet could not send the test tokens. Try again in a moment.',
  planRequired: 'An active plan is required to start bots. Choose one in Settings → Plans.',
  planLimit:
    'Running bots with the {plan} plan: at most {max}. Stop one, or choose a larger plan in Settings → Plans.',
} as const;

/** Spec part 1 §9 and issue 17. */
export const EARNINGS_LIMITS = {
  /** Wallet address length (§9). */
  addressLength: 42,
  /** The page repeats POST /api/earnings this often once connected (§9). */
  earningsRefreshMs: 10_000,
  /** The page repeats GET /api/pool_state this often (§9). */
  poolStateRefreshMs: 600_000,
  /** Pending rewards are shown capped at this many tokens (§9: auto-paid on reaching 2). */
  rewardsDisplayCap: 2,
  /** The pool warning shows under this many tokens (§9). */
  poolWarningBelow: 5_000_000,
  /** The server records the pool for the chart this often. */
  snapshotEveryMs: 600_000,
} as const;

/** The faucet of the embedded chain: what one claim gives and how often a user may claim. */
export const FAUCET = { usdt: 1_000, usdc: 1_000, eth: 1, intervalMs: 600_000 } as const;

/** Subscription plans (spec part 1 §9; docs/plans.md): price in USD, paid in tokens; bot limits with PLANS_REQUIRED. */
export const PLAN_IDS = ['basic', 'advanced', 'professional'] as const;
export type PlanId = (typeof PLAN_IDS)[number];
export const PLAN_CATALOG: Record<
  PlanId,
  { plan: 1 | 2 | 3; name: string; usdCents: number; maxBots: number }
> = {
  basic: { plan: 1, name: 'Basic', usdCents: 500, maxBots: 1 },
  advanced: { plan: 2, name: 'Advanced', usdCents: 1_500, maxBots: 5 },
  professional: { plan: 3, name: 'Professional', usdCents: 3_000, maxBots: 20 },
};
/** A payment activates (or extends) its plan for this many days. */
export const PLAN_DAYS = 30;

/** The methods `POST /api/chain/rpc` forwards; everything else gets a JSON-RPC error. */
export const RPC_PROXY_METHODS = [
  'eth_chainId',
  'net_version',
  'net_listening',
  'web3_clientVersion',
  'eth_syncing',
  'eth_blockNumber',
  'eth_gasPrice',
  'eth_feeHistory',
  'eth_maxPriorityFeePerGas',
  'eth_getBalance',
  'eth_getCode',
  'eth_getStorageAt',
  'eth_getTransactionCount',
  'eth_call',
  'eth_estimateGas',
  'eth_getLogs',
  'eth_getBlockByNumber',
  'eth_getBlockByHash',
  'eth_getTransactionByHash',
  'eth_getTransactionReceipt',
  'eth_sendRawTransaction',
  'eth_newFilter',
  'eth_newBlockFilter',
  'eth_getFilterChanges',
  'eth_getFilterLogs',
  'eth_uninstallFilter',
] as const;
/**
 * The proxy's bounds (issue 37): at most 10 calls a batch; `gas` of eth_call / eth_estimateGas capped at
 * 30,000,000 (the embedded node's block gas limit; filled in when missing); 128 KB a body.
 */
export const RPC_PROXY_LIMITS = { maxBatch: 10, maxBodyBytes: 128 * 1024, maxCallGas: 30_000_000 } as const;

const address = z.string().regex(/^0x[0-9a-fA-F]{40}$/);
const txHash = z.string().regex(/^0x[0-9a-fA-F]{64}$/);

export const chainAddressesSchema = z.object({
  token: address,
  sale: address,
  pool: address,
  plans: address,
  usdt: address,
  usdc: address,
});
export type ChainAddressesView = z.infer<typeof chainAddressesSchema>;

export const chainInfoResponse = z.object({
  success: z.literal(true),
  mode: z.enum(CHAIN_MODES),
  chainId: z.number().int(),
  /** Where a browser wallet reaches the chain: the server's proxy (embedded) or the real node; null when off. */
  rpcUrl: z.string().nullable(),
  /** Transactions at `{explorerUrl}/tx/{hash}`; null on the embedded chain (its own view: /chain/tx/{hash}). */
  explorerUrl: z.string().nullable(),
  /** null while the embedded chain starts (or when it could not), and when off. */
  addresses: chainAddressesSchema.nullable(),
  /** The sale's owner (Withdraw USDT shows for this address); null when unknown. */
  owner: address.nullable(),
  /** Whether `POST /api/chain/faucet` gives test tokens (embedded chain only). */
  faucet: z.boolean(),
  /** Confirmations a plan payment needs. */
  confirmations: z.number().int(),
  /** Whether the server reaches the chain now. */
  ready: z.boolean(),
});
export type ChainInfo = z.infer<typeof chainInfoResponse>;

export const txHashParams = z.object({ hash: z.string().max(200) });

export const chainTxEvent = z.object({
  /** The emitting contract: token, sale, pool, plans, usdt, usdc, or its address when unknown. */
  contract: z.string(),
  address,
  /** The event's name, null when it is not one of ours. */
  name: z.string().nullable(),
  /** Decoded arguments (integers as decimal strings). */
  args: z.record(z.string(), z.unknown()),
});
export const chainTxResponse = z.object({
  success: z.literal(true),
  hash: txHash,
  from: address,
  to: address.nullable(),
  /** `to` as one of our contracts, if it is. */
  to_contract: z.string().nullable(),
  status: z.enum(['pending', 'success', 'reverted']),
  block_number: z.number().int().nullable(),
  /** Block time in ms, null while pending. */
  timestamp: z.number().nullable(),
  confirmations: z.number().int(),
  /** Wei, decimal string. */
  value: z.string(),
  /** The called function's name when the transaction calls one of ours. */
  function: z.string().nullable(),
  events: z.array(chainTxEvent),
});
export type ChainTxResponse = z.infer<typeof chainTxResponse>;

export const faucetBody = z.object({ address: z.unknown(), user_id: userIdField });
export const faucetResponse = z.object({
  success: z.literal(true),
  message: z.string(),
  address,
  usdt_tx: txHash,
  usdc_tx: txHash,
});
export type FaucetResponse = z.infer<typeof faucetResponse>;

/** `address` is checked by the server (exactly 42 characters, 0x and hex) so it answers the spec's text. */
export const earningsBody = z.object({
  address: z.unknown(),
  force: z.union([z.boolean(), z.null()]).optional(),
  /**
   * Needed to link an address the user has not linked yet (issue 37): the `nonce` of
   * `POST /api/earnings/nonce` and the wallet's `personal_sign` of its `message` (65-byte hex).
   */
  nonce: z.string().max(64).optional(),
  signature: z.string().max(1_000).optional(),
  user_id: userIdField,
});
export type EarningsBody = { address: string; force?: boolean; nonce?: string; signature?: string };

/** Sign-in messages for linking a wallet: valid this long, and at most this many outstanding per user. */
export const WALLET_LINK = { nonceTtlMs: 600_000, outstanding: 5 } as const;

export const earningsNonceBody = z.object({ address: z.unknown(), user_id: userIdField });
export const earningsNonceResponse = z.object({
  success: z.literal(true),
  /** Checksummed. */
  address,
  /** Single use; expires with the message. */
  nonce: z.string(),
  /** EIP-4361 (Sign-In with Ethereum) text for the wallet's personal_sign, exactly as to be signed. */
  message: z.string(),
  /** ms since the epoch. */
  expires_at: z.number(),
});
export type EarningsNonceResponse = z.infer<typeof earningsNonceResponse>;

export const earningsResponse = z.object({
  success: z.literal(true),
  /** Staked tokens. */
  balance: z.number(),
  /** APY in percent at the pool's current size (the contract's tier). */
  apy: z.number(),
  /** Rewards earned since 00:00 UTC (chain time), in tokens. */
  today_profit: z.number(),
  /** Rewards paid so far plus pending, in tokens. */
  total_profit: z.number(),
  /** Pending rewards, shown capped at 2 (auto-paid on reaching 2). */
  available_rewards: z.number(),
  /** Tokens a second at the current APY. */
  reward_per_second: z.number(),
  message: z.string(),
  /** The linked wallet (checksummed). */
  address,
  /** Pending rewards, uncapped, in tokens. */
  pending_rewards: z.number(),
  /** Staked and pending in base units (18 decimals), for transactions. */
  balance_wei: z.string(),
  pending_wei: z.string(),
  /** The wallet's unstaked token balance. */
  wallet_tokens: z.number(),
  wallet_tokens_wei: z.string(),
  /** The pool's rewards reserve in tokens (its balance minus what is staked). */
  pool_available: z.number(),
  /** When the chain was read (ms): answers within one 10 s interval share one read. */
  read_at: z.number(),
});
export type EarningsResponse = z.infer<typeof earningsResponse>;

export const earningsWalletResponse = z.object({ success: z.literal(true), address: address.nullable() });
export type EarningsWalletResponse = z.infer<typeof earningsWalletResponse>;

export const deleteWalletBody = z.object({ user_id: userIdField });
export const deleteWalletResponse = z.object({ success: z.literal(true), message: z.string() });

export const poolStateResponse = z.object({
  success: z.literal(true),
  /** Tokens in the rewards reserve. */
  pool_available: z.number(),
  /** APY in percent (the tier of `pool_available`). */
  apy: z.number(),
  /** Tokens staked by everyone. */
  total_staked: z.number(),
  read_at: z.number(),
});
export type PoolStateResponse = z.infer<typeof poolStateResponse>;

export const earningsHistoryQuery = z.object({
  days: z.coerce
    .number({ message: 'days must be a whole number from 1 to 90' })
    .int('days must be a whole number from 1 to 90')
    .min(1, 'days must be a whole number from 1 to 90')
    .max(90, 'days must be a whole number from 1 to 90')
    .default(30),
  user_id: userIdField,
});
export const earningsHistoryPoint = z.object({
  /** ms since the epoch. */
  t: z.number(),
  pool_available: z.number(),
  /** The user's rewards earned up to `t` (paid; the last point adds what is pending). */
  rewards: z.number(),
});
export const earningsHistoryResponse = z.object({
  success: z.literal(true),
  address: address.nullable(),
  points: z.array(earningsHistoryPoint),
});
export type EarningsHistoryResponse = z.infer<typeof earningsHistoryResponse>;

export const plansQuery = z.object({ user_id: userIdField });
export const planView = z.object({
  id: z.enum(PLAN_IDS),
  plan: z.union([z.literal(1), z.literal(2), z.literal(3)]),
  name: z.string(),
  price_usd: z.number(),
  /** Whole tokens at the sale price. */
  price_tokens: z.number(),
  /** Base units to approve and pay. */
  price_tokens_wei: z.string(),
  /** Running bots allowed with PLANS_REQUIRED. */
  max_bots: z.number().int(),
});
export const plansResponse = z.object({
  success: z.literal(true),
  plans: z.array(planView),
  /** The bytes32 to pass to `payPlan(plan, ref)`: it names this user. */
  payment_ref: z.string().regex(/^0x[0-9a-f]{64}$/),
  active: z
    .object({
      id: z.enum(PLAN_IDS),
      plan: z.number().int(),
      /** ms since the epoch. */
      expires_at: z.number(),
      tx_hash: txHash,
    })
    .nullable(),
  pending: z.array(
    z.object({
      id: z.enum(PLAN_IDS),
      plan: z.number().int(),
      tx_hash: txHash,
      confirmations: z.number().int(),
      required: z.number().int(),
    }),
  ),
  /**
   * Confirmed payments that did not activate their plan (paid fewer tokens than the plan's price at the
   * payment block's sale price), newest first, with the reason (issue 37).
   */
  refused: z
    .array(
      z.object({
        id: z.enum(PLAN_IDS),
        plan: z.number().int(),
        tx_hash: txHash,
        /** The server's reason, in English (the web app words it from the numbers below). */
        reason: z.string(),
        /** Whole tokens the payment carried (may be 0 or fractional). */
        tokens: z.number().optional(),
        /**
         * Whole tokens the plan cost at the sale price of the payment's block; null when the payment was
         * refused for another reason (its USD price is not the plan's, or the sale price read 0).
         */
        price_tokens: z.number().nullable().optional(),
        /** The payment's block time, ms since the epoch. */
        paid_at: z.number().optional(),
      }),
    )
    .optional(),
  /** Whether this server needs a plan to start bots. */
  required: z.boolean(),
  days: z.number().int(),
});
export type PlansResponse = z.infer<typeof plansResponse>;
