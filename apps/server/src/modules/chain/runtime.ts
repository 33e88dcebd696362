import { type ChainAddresses } from '@bytx/chain';
import { tokenSaleAbi } from '@bytx/chain';
import {
  ANVIL_DEV_ADDRESSES,
  chainFor,
  deployAll,
  hasCode,
  moveOwnership,
  paddedHttp,
} from '@bytx/chain/node';
import { CHAIN_MESSAGES } from '@bytx/contract';
import type { FastifyBaseLogger } from 'fastify';
import {
  createPublicClient,
  createTestClient,
  createWalletClient,
  getAddress,
  http,
  type Address,
  type Chain,
  type Hex,
  type PrivateKeyAccount,
  type PublicClient,
  type TestClient,
  type WalletClient,
} from 'viem';
import { generatePrivateKey, nonceManager, privateKeyToAccount } from 'viem/accounts';
import type { ChainConfig, ChainMode } from '../../config';
import { sealContext, type SecretBox } from '../../lib/crypto';
import { HttpError } from '../../lib/errors';
import { EmbeddedNode } from './embedded';
import type { ChainRepository } from './repository';

/** What the rest of the module needs of a running chain. */
export interface ReadyChain {
  mode: Exclude<ChainMode, 'off'>;
  chainId: number;
  /** The node's own URL (the embedded node's loopback port, or CHAIN_RPC_URL). */
  rpcUrl: string;
  addresses: ChainAddresses;
  client: PublicClient;
}

const chainOff = () => new HttpError(404, CHAIN_MESSAGES.chainOff, { code: 'chain_off' });
const notReady = () => new HttpError(503, CHAIN_MESSAGES.chainNotReady, { code: 'chain_error' });
export const embeddedOnly = () => new HttpError(404, CHAIN_MESSAGES.embeddedOnly, { code: 'embedded_only' });

/**
 * The chain the server talks to (docs/chain.md): `embedded` (anvil in DATA_DIR/chain, the contracts
 * deployed on first start and recorded in `chain_deployments`), `rpc` (CHAIN_RPC_URL and the configured
 * addresses: a real chain such as Arbitrum One; the server holds no key there) or `off`.
 */
export class ChainRuntime {
  readonly mode: ChainMode;
  readonly chainId: number;
  private rpcUrl: string | null;
  private addresses: ChainAddresses | null;
  private client: PublicClient | null = null;
  private chain: Chain | null = null;
  private node: EmbeddedNode | null = null;
  /**
   * The embedded deployer and owner: a key generated for this install, kept sealed with the master key
   * in `chain_owner_keys` (never one of anvil's public dev keys; docs/chain.md "Keys").
   */
  owner: Address | null = null;
  private ownerAccount: PrivateKeyAccount | null = null;
  /** Why the chain is not ready (logged once; the calls answer 503). */
  failure: string | null = null;

  constructor(
    readonly config: ChainConfig,
    private readonly repo: ChainRepository,
    private readonly log: FastifyBaseLogger,
    private readonly secretBox: SecretBox,
  ) {
    this.mode = config.mode;
    this.chainId = config.chainId;
    this.rpcUrl = config.rpcUrl;
    this.addresses = config.addresses;
  }

  get ready(): boolean {
    return this.client !== null && this.addresses !== null;
  }
  get embedded(): EmbeddedNode | null {
    return this.node;
  }
  get currentAddresses(): ChainAddresses | null {
    return this.addresses;
  }

  /**
   * Starts the embedded node and deploys when the recorded contracts have no code, or connects to the
   * real chain. A failure is logged and leaves the chain not ready: the rest of the platform runs on.
   */
  async start(): Promise<void> {
    if (this.mode === 'off') return;
    try {
      if (this.mode === 'embedded') await this.startEmbedded();
      else {
        this.connect(this.config.rpcUrl!);
        void this.checkRemote();
      }
    } catch (err) {
      this.failure = err instanceof Error ? err.message : String(err);
      this.log.error({ err }, 'the token chain could not start; its calls answer 503');
      await this.node?.stop().catch(() => undefined);
      this.node = null;
      this.client = null;
      if (this.mode === 'embedded') this.addresses = null;
    }
  }

  async stop(): Promise<void> {
    const node = this.node;
    this.node = null;
    this.client = null;
    await node?.stop();
  }

  /** A real chain answering another chain id is a configuration mistake: said loudly, not fatal. */
  private async checkRemote() {
    try {
      const id = await this.client?.getChainId();
      if (id !== undefined && id !== this.chainId) {
        this.log.error(
          { rpcChainId: id, CHAIN_ID: this.chainId },
          'CHAIN_RPC_URL answers another chain id than CHAIN_ID',
        );
      }
    } catch (err) {
      this.log.warn(
        { err: err instanceof Error ? err.message : String(err) },
        'CHAIN_RPC_URL does not answer yet',
      );
    }
  }

  private connect(rpcUrl: string) {
    this.rpcUrl = rpcUrl;
    this.chain = chainFor(this.chainId, rpcUrl);
    this.client = createPublicClient({
      chain: this.chain,
      transport: http(rpcUrl, { batch: { batchSize: 50, wait: 0 }, timeout: 10_000, retryCount: 1 }),
    });
  }

  /**
   * The install's owner key: read from `chain_owner_keys` (sealed with the SecretBox), or generated
   * (32 random bytes) and stored on first start. Its nonces are kept in this process (viem's nonce
   * manager), so the faucet's and the keeper's transactions never reuse one.
   */
  /** The sealed key's associated data: its owner and purpose (a ciphertext moved elsewhere does not open). */
  get keyContext(): string {
    return sealContext.chainOwnerKey(this.chainId);
  }

  private async loadOwnerKey(): Promise<{ key: Hex; account: PrivateKeyAccount }> {
    let row = await this.repo.ownerKey(this.chainId);
    if (!row) {
      const fresh = generatePrivateKey();
      const address = privateKeyToAccount(fresh).address;
      row = await this.repo.keepOwnerKey(this.chainId, address, this.secretBox.seal(fresh, this.keyContext));
    }
    const key = this.secretBox.open(row.keyEnc, this.keyContext) as Hex;
    const account = privateKeyToAccount(key, { nonceManager });
    if (account.address.toLowerCase() !== row.address.toLowerCase()) {
      throw new Error('the stored chain owner key does not match its recorded address');
    }
    return { key, account };
  }

  private async startEmbedded() {
    const node = new EmbeddedNode(this.config.dir, this.chainId, this.log);
    this.node = node;
    const rpcUrl = await node.start();
    const { key, account } = await this.loadOwnerKey();
    const recorded = await this.repo.deployment(this.chainId);
    let addresses: ChainAddresses;
    let owner: Address;
    const all = (r: NonNullable<typeof recorded>) => [r.token, r.sale, r.pool, r.plans, r.usdt, r.usdc];
    const live = recorded
      ? (await Promise.all(all(recorded).map((a) => hasCode(rpcUrl, a as Address)))).every(Boolean)
      : false;
    if (recorded && live) {
      addresses = {
        token: getAddress(recorded.token),
        sale: getAddress(recorded.sale),
        pool: getAddress(recorded.pool),
        plans: getAddress(recorded.plans),
        usdt: getAddress(recorded.usdt),
        usdc: getAddress(recorded.usdc),
      };
      owner = getAddress(recorded.owner);
      const onChain = await createPublicClient({ transport: http(rpcUrl) }).readContract({
        address: addresses.sale,
        abi: tokenSaleAbi,
        functionName: 'owner',
      });
      if (ANVIL_DEV_ADDRESSES.has(onChain.toLowerCase())) {
        // Deployed before owner keys existed (by anvil's dev account 0, a public key): the contracts
        // are Ownable, so ownership (and the deployer's tokens) move to this install's key; the
        // users' stakes, purchases and plans stay as they are.
        owner = await moveOwnership({ rpcUrl, chainId: this.chainId, addresses, ownerKey: key });
        await this.repo.setDeploymentOwner(this.chainId, owner);
        this.log.warn(
          { owner },
          "embedded chain: ownership moved from the public dev account to this install's key",
        );
      } else if (onChain.toLowerCase() !== account.address.toLowerCase()) {
        // The operator handed the sale to another owner (their own wallet): theirs to keep. The
        // install's key still signs the faucet and the keeper, which need no ownership.
        this.log.warn(
          { owner: onChain },
          "embedded chain: the sale is owned by another key than this install's",
        );
      }
    } else {
      if (recorded)
        this.log.warn('the recorded contracts have no code on the embedded chain: deploying again');
      const d = await deployAll({ rpcUrl, chainId: this.chainId, ownerKey: key });
      addresses = { token: d.token, sale: d.sale, pool: d.pool, plans: d.plans, usdt: d.usdt, usdc: d.usdc };
      owner = d.owner;
      await this.repo.recordDeployment({ chainId: this.chainId, ...addresses, owner });
      this.log.info({ addresses, owner }, 'contracts deployed on the embedded chain');
    }
    // A block per transaction (automine), never empty blocks on a timer: anvil keeps every block in its
    // state file and rewrites the whole file every second (about 1.7 KB a block: 150 MB a day at one
    // block a second). Confirmations are mined on demand by the indexer; reads use the pending block,
    // whose time is now, so rewards grow between transactions.
    this.connect(rpcUrl);
    await this.test().request({ method: 'evm_setAutomine', params: [true] });
    this.addresses = addresses;
    this.owner = owner;
    this.ownerAccount = account;
  }

  /**
   * Embedded: the indexer mines the blocks that events still wait for (confirmations), as a real chain
   * would bring them. Tests that count confirmations themselves turn it off.
   */
  mineOnDemand = true;

  /** The block tag of reads: the pending block on the embedded chain (its time is now, see above). */
  get readTag(): 'pending' | 'latest' {
    return this.mode === 'embedded' ? 'pending' : 'latest';
  }

  /** The chain, or 404 (off) / 503 (not reachable). */
  require(): ReadyChain {
    if (this.mode === 'off') throw chainOff();
    if (!this.client || !this.addresses || !this.rpcUrl) throw notReady();
    return {
      mode: this.mode,
      chainId: this.chainId,
      rpcUrl: this.rpcUrl,
      addresses: this.addresses,
      client: this.client,
    };
  }

  /** The embedded chain, or 404 on any other. */
  requireEmbedded(): ReadyChain & { owner: Address } {
    if (this.mode === 'off') throw chainOff();
    if (this.mode !== 'embedded') throw embeddedOnly();
    const ready = this.require();
    if (!this.owner) throw notReady();
    return { ...ready, owner: this.owner };
  }

  /**
   * A wallet of the embedded owner: the install's key signs here and the node gets
   * eth_sendRawTransaction (the node holds no key of ours).
   */
  ownerWallet(): WalletClient & { account: PrivateKeyAccount } {
    const { rpcUrl } = this.requireEmbedded();
    const account = this.ownerAccount;
    if (!account) throw notReady();
    return createWalletClient({
      account,
      chain: this.chain!,
      transport: paddedHttp(rpcUrl, { timeout: 15_000 }),
    });
  }

  /** anvil's own methods (the faucet's ETH, tests' time travel). Embedded only. */
  test(): TestClient<'anvil'> {
    const url = this.node && this.rpcUrl ? this.rpcUrl : null;
    if (!url || this.mode !== 'embedded') throw embeddedOnly();
    return createTestClient({ mode: 'anvil', chain: this.chain!, transport: http(url) });
  }

  /** The node's URL the RPC proxy forwards to (embedded only). */
  proxyTarget(): string {
    return this.requireEmbedded().rpcUrl;
  }
}
