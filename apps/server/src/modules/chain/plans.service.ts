import { formatUnits } from 'viem';
import {
  CHAIN_MESSAGES,
  fillMessage,
  PLAN_CATALOG,
  PLAN_DAYS,
  PLAN_IDS,
  plansResponse,
  type PlanId,
  type PlansResponse,
} from '@bytx/contract';
import type { AppContext } from '../../context';
import type { TableCache } from '../../db/table-cache';
import { HttpError } from '../../lib/errors';
import { serializeAs } from '../../lib/serialize';
import type { BotsRepository } from '../bots/bots.repository';
import type { ChainReader } from './reader';
import { ChainRepository, type ChainEventRow, type PlanPaymentRow } from './repository';
import type { ChainRuntime } from './runtime';

const DAY_MS = 86_400_000;
const PLAN_MS = PLAN_DAYS * DAY_MS;

export const planIdOf = (plan: number): PlanId | null =>
  PLAN_IDS.find((id) => PLAN_CATALOG[id].plan === plan) ?? null;

export interface PlanPeriod {
  id: PlanId;
  plan: number;
  expiresAt: number;
  txHash: string;
}

/**
 * The plan a user's confirmed payments give at `now` (docs/plans.md). Payments count in the order they
 * were paid: one of the plan in force adds 30 days to its end; one of another plan starts that plan at
 * once for 30 days, plus what was left of the previous plan converted at the two plans' prices; one
 * after the previous period ended starts a new period.
 */
export function activePlanOf(payments: PlanPaymentRow[], now: number): PlanPeriod | null {
  const last = payments.reduce<PlanPeriod | null>((prev, p) => {
    const id = planIdOf(p.plan);
    if (!id) return prev;
    const t = p.paidAt.getTime();
    if (!prev || prev.expiresAt <= t) return { id, plan: p.plan, expiresAt: t + PLAN_MS, txHash: p.txHash };
    if (prev.plan === p.plan) return { ...prev, expiresAt: prev.expiresAt + PLAN_MS, txHash: p.txHash };
    const left = ((prev.expiresAt - t) * PLAN_CATALOG[prev.id].usdCents) / PLAN_CATALOG[id].usdCents;
    return { id, plan: p.plan, expiresAt: t + PLAN_MS + Math.floor(left), txHash: p.txHash };
  }, null);
  return last && last.expiresAt > now ? last : null;
}

/**
 * The tokens a refused payment should have carried, read back from the reason the indexer stored
 * (`ChainIndexer.underpaid`: "paid X tokens; the <plan> plan costs Y tokens at the sale price of block N"),
 * so the web app can show paid vs needed in the user's language; null for the other reasons.
 */
export function dueOfRefusal(reason: string): number | null {
  const m = /^paid [\d.]+ tokens; the \w+ plan costs ([\d.]+) tokens /.exec(reason);
  const due = m ? Number(m[1]) : NaN;
  return Number.isFinite(due) ? due : null;
}

/** A user's rows behind GET /api/plans (what the clock, the chain's head and prices do not change). */
export interface PlanRows {
  ref: string;
  payments: PlanPaymentRow[];
  refused: PlanPaymentRow[];
  pending: ChainEventRow[];
}

/** GET /api/plans: prices, the user's payment ref, the active plan and payments waiting for confirmations. */
export class PlansService {
  constructor(
    private readonly runtime: ChainRuntime,
    private readonly reader: ChainReader,
    private readonly repo: ChainRepository,
    private readonly plansRequired: boolean,
    /** The chain's latest block as the indexer last saw it. */
    private readonly head: () => bigint | null,
    /**
     * The users' rows, kept until the next write to the tables they come from (db/table-cache.ts):
     * four queries on every call were nearly all of its cost. The active plan (the clock), the
     * confirmations (the head) and the prices are still worked out on every call.
     */
    private readonly kept?: TableCache<PlanRows>,
  ) {}

  async active(userId: string): Promise<PlanPeriod | null> {
    return activePlanOf(await this.repo.planPayments(this.runtime.chainId, userId), Date.now());
  }

  /** The user's rows (the payment ref is made on first use: that load is not kept, it wrote). */
  private async rows(userId: string): Promise<PlanRows> {
    const load = async (): Promise<PlanRows> => {
      const chainId = this.runtime.chainId;
      const [ref, payments, refused] = await Promise.all([
        this.repo.paymentRef(userId),
        this.repo.planPayments(chainId, userId),
        this.repo.refusedPayments(chainId, userId),
      ]);
      const pending = this.runtime.mode === 'off' ? [] : await this.repo.pendingPayments(chainId, ref);
      return { ref, payments, refused, pending };
    };
    return this.kept ? this.kept.get(userId, load) : load();
  }

  async view(userId: string): Promise<PlansResponse> {
    const [rows, prices] = await Promise.all([this.rows(userId), this.reader.planPrices()]);
    return this.build(rows, prices, activePlanOf(rows.payments, Date.now()), this.head());
  }

  /**
   * The answer serialized (GET /api/plans): the same bytes as `view` through the response schema,
   * reused while its inputs are the same objects and values (the kept rows, the prices read, the
   * chain's head, the active plan at this moment); the schema's encode was most of a call's cost.
   */
  async viewBody(userId: string): Promise<string> {
    const [rows, prices] = await Promise.all([this.rows(userId), this.reader.planPrices()]);
    const active = activePlanOf(rows.payments, Date.now());
    const head = this.head();
    const activeKey = active ? `${active.id}|${active.expiresAt}|${active.txHash}` : '';
    const hit = this.bodies.get(rows);
    if (hit && hit.prices === prices && hit.head === head && hit.active === activeKey) return hit.body;
    const body = serializeAs(plansResponse, this.build(rows, prices, active, head));
    this.bodies.set(rows, { prices, head, active: activeKey, body });
    return body;
  }

  private readonly bodies = new WeakMap<
    PlanRows,
    { prices: unknown; head: bigint | null; active: string; body: string }
  >();

  private build(
    rows: PlanRows,
    prices: Record<1 | 2 | 3, bigint>,
    active: PlanPeriod | null,
    head: bigint | null,
  ): PlansResponse {
    const { ref, refused: refusedRows, pending: pendingRows } = rows;
    const refused: NonNullable<PlansResponse['refused']> = [];
    for (const r of refusedRows) {
      const id = planIdOf(r.plan);
      if (!id) continue;
      const reason = r.refused ?? '';
      refused.push({
        id,
        plan: r.plan,
        tx_hash: r.txHash,
        reason,
        tokens: /^\d+$/.test(r.tokens) ? Number(formatUnits(BigInt(r.tokens), 18)) : 0,
        price_tokens: dueOfRefusal(reason),
        paid_at: r.paidAt.getTime(),
      });
    }
    const required = this.runtime.config.confirmations;
    const pending: PlansResponse['pending'] = [];
    for (const e of pendingRows) {
      const args = e.args as { plan?: unknown };
      const id = planIdOf(Number(args.plan));
      if (!id) continue;
      const confirmations = head === null ? 0 : Math.max(0, Number(head) - e.blockNumber + 1);
      pending.push({ id, plan: PLAN_CATALOG[id].plan, tx_hash: e.txHash, confirmations, required });
    }
    return {
      success: true,
      plans: PLAN_IDS.map((id) => {
        const c = PLAN_CATALOG[id];
        const wei = prices[c.plan];
        return {
          id,
          plan: c.plan,
          name: c.name,
          price_usd: c.usdCents / 100,
          price_tokens: Number(formatUnits(wei, 18)),
          price_tokens_wei: wei.toString(),
          max_bots: c.maxBots,
        };
      }),
      payment_ref: ref,
      active: active
        ? { id: active.id, plan: active.plan, expires_at: active.expiresAt, tx_hash: active.txHash }
        : null,
      pending,
      refused,
      required: this.plansRequired,
      days: PLAN_DAYS,
    };
  }
}

/**
 * PLANS_REQUIRED (docs/plans.md): every bot a user starts is inserted through `insertBot` with the bot
 * cap (`startCap()`), whatever its kind; with PLANS_REQUIRED this wraps that one door of the bots
 * repository so a start needs an active plan (403) and respects the plan's limit of running bots inside
 * the same locked count as MAX_BOTS_PER_USER. Inserts without a cap (what a bot leaves behind, manual
 * orders) are not bot starts and pass as before. Without PLANS_REQUIRED nothing changes.
 */
export function enforcePlansOnBotStarts(ctx: AppContext, bots: BotsRepository): void {
  if (!ctx.config.PLANS_REQUIRED) return;
  const repo = new ChainRepository(ctx.db);
  const chainId = ctx.config.chain.chainId;
  const insert = bots.insertBot.bind(bots);
  bots.insertBot = async (row, cap) => {
    if (!cap) return insert(row, cap);
    const active = activePlanOf(await repo.planPayments(chainId, row.userId), Date.now());
    if (!active) throw new HttpError(403, CHAIN_MESSAGES.planRequired, { code: 'plan_required' });
    const max = PLAN_CATALOG[active.id].maxBots;
    if (max >= cap.max) return insert(row, cap);
    const message = fillMessage(CHAIN_MESSAGES.planLimit, { plan: PLAN_CATALOG[active.id].name, max });
    return insert(row, { ...cap, max, full: () => new HttpError(403, message, { code: 'plan_limit' }) });
  };
}
