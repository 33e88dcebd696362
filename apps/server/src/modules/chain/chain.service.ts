import { bytxTokenAbi, testStablecoinAbi } from '@bytx/chain';
import {
  CHAIN_MESSAGES,
  FAUCET,
  fillMessage,
  type ChainInfo,
  type ChainTxResponse,
  type FaucetResponse,
} from '@bytx/contract';
import type { FastifyBaseLogger } from 'fastify';
import {
  decodeEventLog,
  decodeFunctionData,
  getAddress,
  parseEther,
  parseUnits,
  type Abi,
  type Hash,
} from 'viem';
import { HttpError, notFound, tooManyRequests } from '../../lib/errors';
import { parseWalletAddress } from './earnings.service';
import { INDEXED, jsonArgs } from './indexer';
import type { ChainReader } from './reader';
import type { ChainRepository } from './repository';
import type { ChainRuntime } from './runtime';

/** Every contract of a deployment with its ABI, by role. */
const ABIS: Record<string, Abi> = {
  ...INDEXED,
  token: bytxTokenAbi,
  usdt: testStablecoinAbi,
  usdc: testStablecoinAbi,
};

/** GET /api/chain, the transaction view and the embedded chain's faucet. */
export class ChainService {
  constructor(
    private readonly runtime: ChainRuntime,
    private readonly reader: ChainReader,
    private readonly repo: ChainRepository,
    private readonly log: FastifyBaseLogger,
  ) {}

  /**
   * Where the chain is; `publicUrl` is the configured PUBLIC_URL (the proxy URL a browser wallet uses;
   * never the request's Host). `owner` is the sale's `owner()` as read (a transfer shows within an
   * indexing round: the indexer forgets the cached owner on OwnershipTransferred).
   */
  async info(publicUrl: string): Promise<ChainInfo> {
    const r = this.runtime;
    const addresses = r.ready ? r.currentAddresses : null;
    const owner = addresses
      ? ((await this.reader.saleOwner()) ?? (r.mode === 'embedded' ? r.owner : null))
      : null;
    return {
      success: true,
      mode: r.mode,
      chainId: r.chainId,
      rpcUrl:
        r.mode === 'embedded' ? `${publicUrl}/api/chain/rpc` : r.mode === 'rpc' ? r.config.rpcUrl : null,
      explorerUrl: r.config.explorerUrl,
      addresses,
      owner: addresses ? owner : null,
      faucet: r.mode === 'embedded' && r.ready,
      confirmations: r.config.confirmations,
      ready: r.ready,
    };
  }

  /** The chain's own view of a transaction (the embedded chain's explorer). */
  async tx(rawHash: string): Promise<ChainTxResponse> {
    if (!/^0x[0-9a-fA-F]{64}$/.test(rawHash)) throw new HttpError(400, CHAIN_MESSAGES.invalidTxHash);
    const hash = rawHash.toLowerCase() as Hash;
    const chain = this.runtime.require();
    const { client } = chain;
    const tx = await client.getTransaction({ hash }).catch(() => null);
    if (!tx) throw notFound(CHAIN_MESSAGES.txNotFound);
    const receipt =
      tx.blockNumber === null ? null : await client.getTransactionReceipt({ hash }).catch(() => null);
    const [head, block] = await Promise.all([
      client.getBlockNumber({ cacheTime: 0 }),
      tx.blockNumber === null ? null : client.getBlock({ blockNumber: tx.blockNumber }).catch(() => null),
    ]);
    const roles = new Map<string, string>(
      Object.entries(chain.addresses).map(([role, a]: [string, string]) => [a.toLowerCase(), role]),
    );
    const toRole = tx.to ? (roles.get(tx.to.toLowerCase()) ?? null) : null;
    let fn: string | null = null;
    if (toRole && ABIS[toRole]) {
      try {
        fn = decodeFunctionData({ abi: ABIS[toRole], data: tx.input }).functionName;
      } catch {
        fn = null;
      }
    }
    const events: ChainTxResponse['events'] = (receipt?.logs ?? []).map((log) => {
      const role = roles.get(log.address.toLowerCase()) ?? null;
      const abi = role ? ABIS[role] : undefined;
      if (abi) {
        try {
          const d = decodeEventLog({ abi, data: log.data, topics: log.topics });
          return {
            contract: role!,
            address: getAddress(log.address),
            name: d.eventName ?? null,
            args: jsonArgs(d.args),
          };
        } catch {
          // not an event of this ABI
        }
      }
      return {
        contract: role ?? getAddress(log.address),
        address: getAddress(log.address),
        name: null,
        args: {},
      };
    });
    return {
      success: true,
      hash,
      from: getAddress(tx.from),
      to: tx.to ? getAddress(tx.to) : null,
      to_contract: toRole,
      status: receipt ? receipt.status : 'pending',
      block_number: tx.blockNumber === null ? null : Number(tx.blockNumber),
      timestamp: block ? Number(block.timestamp) * 1000 : null,
      confirmations: tx.blockNumber === null ? 0 : Math.max(0, Number(head - tx.blockNumber) + 1),
      value: tx.value.toString(),
      function: fn,
      events,
    };
  }

  /**
   * The embedded chain's faucet: 1,000 test USDT, 1,000 test USDC and 1 ETH to `address`, once per user
   * per 10 minutes (the turn is given back when the chain could not send).
   */
  async faucet(userId: string, rawAddress: unknown): Promise<FaucetResponse> {
    const address = parseWalletAddress(rawAddress);
    const chain = this.runtime.requireEmbedded();
    const turn = await this.repo.claimFaucet(userId, FAUCET.intervalMs);
    if (!turn.ok) {
      const waitMs = turn.last.getTime() + FAUCET.intervalMs - Date.now();
      const minutes = Math.max(1, Math.ceil(waitMs / 60_000));
      throw tooManyRequests(fillMessage(CHAIN_MESSAGES.faucetWait, { minutes }));
    }
    try {
      const wallet = this.runtime.ownerWallet();
      const send = (token: `0x${string}`, amount: bigint) =>
        wallet.writeContract({
          address: token,
          abi: testStablecoinAbi,
          functionName: 'faucet',
          args: [address, amount],
          account: wallet.account,
          chain: null,
        });
      const usdtTx = await send(chain.addresses.usdt, parseUnits(String(FAUCET.usdt), 6));
      const usdcTx = await send(chain.addresses.usdc, parseUnits(String(FAUCET.usdc), 6));
      const test = this.runtime.test();
      const balance = await chain.client.getBalance({ address });
      await test.setBalance({ address, value: balance + parseEther(String(FAUCET.eth)) });
      const receipts = await Promise.all(
        [usdtTx, usdcTx].map((hash) =>
          chain.client.waitForTransactionReceipt({ hash, pollingInterval: 200, timeout: 30_000 }),
        ),
      );
      if (receipts.some((r) => r.status !== 'success')) throw new Error('a faucet transaction reverted');
      this.reader.accounts.delete(address.toLowerCase());
      return { success: true, message: CHAIN_MESSAGES.faucetDone, address, usdt_tx: usdtTx, usdc_tx: usdcTx };
    } catch (err) {
      await this.repo.restoreFaucet(userId, turn.previous);
      this.log.warn({ err: err instanceof Error ? err.message : String(err) }, 'faucet failed');
      throw new HttpError(503, CHAIN_MESSAGES.faucetFailed);
    }
  }
}
