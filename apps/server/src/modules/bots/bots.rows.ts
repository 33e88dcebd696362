import type { botEvents, botOrders, bots, botTrades } from '../../db/schema/index';

/*
 * The rows of the bot tables and the write one strategy step makes: imported by the repository, the
 * runner and the kinds alike, so this file imports nothing of theirs (no import cycle through it).
 */

export type BotRow = typeof bots.$inferSelect;
export type NewBotRow = typeof bots.$inferInsert;
export type BotOrderRow = typeof botOrders.$inferSelect;
export type NewBotOrderRow = typeof botOrders.$inferInsert;
export type BotTradeRow = typeof botTrades.$inferSelect;
export type NewBotTradeRow = typeof botTrades.$inferInsert;
export type BotEventRow = typeof botEvents.$inferSelect;
export type NewBotEventRow = typeof botEvents.$inferInsert;

/** Orders not yet final: the runner reconciles these with the venue after a restart. */
export const LIVE_ORDER_STATUSES = ['pending_submit', 'open'] as const;

/** Everything one strategy step writes, committed in one transaction. */
export interface BotWrite {
  botId: string;
  state?: unknown;
  pnl?: string;
  status?: BotRow['status'];
  stopReason?: string | null;
  stoppedAt?: Date | null;
  /** Why an active bot cannot trade now (null clears it). */
  problem?: BotRow['problem'];
  problemDetail?: string | null;
  newOrders?: NewBotOrderRow[];
  orderUpdates?: { clientOrderId: string; patch: Partial<NewBotOrderRow> }[];
  trades?: NewBotTradeRow[];
  events?: NewBotEventRow[];
}
