import type { BinanceSpotEmulator } from '@bytx/venues';
import { openDatabase } from '../../src/db/client';

/** One order the emulated exchange holds (its ledger). */
export type LedgerEntry = Awaited<ReturnType<BinanceSpotEmulator['ledger']>>[number];

/** One journaled order (bot_orders) with its bot's kind and the exchange it was sent to. */
export interface JournalRow {
  clientOrderId: string;
  kind: string;
  exchange: string;
  symbol: string;
  side: 'buy' | 'sell';
  status: string;
  filled: number;
}

/** Reads every journaled order of the server's database in `dataDir` (the server must be stopped). */
export async function readJournal(dataDir: string): Promise<JournalRow[]> {
  const database = await openDatabase({ dataDir });
  try {
    // bot_orders.exchange is set for a bot trading on two exchanges (arbitrage); else the bot's own.
    const rows = await database.sql.query(
      `SELECT o.client_order_id, b.kind, COALESCE(o.exchange, b.exchange) AS exchange, o.symbol, o.side,
              o.status, o.filled
         FROM bot_orders o JOIN bots b ON b.id = o.bot_id`,
    );
    return rows.map((r) => ({
      clientOrderId: String(r.client_order_id),
      kind: String(r.kind),
      exchange: String(r.exchange),
      symbol: String(r.symbol),
      side: r.side === 'sell' ? 'sell' : 'buy',
      status: String(r.status),
      filled: Number(r.filled),
    }));
  } finally {
    await database.close();
  }
}

/** Quantities are compared to the exchange's 8 decimals (Binance's spot precision). */
const EPS = 1e-9;

/**
 * The journal against the exchange's ledger: every order the exchange holds is journaled once, with
 * the same fate (closed = filled, open = open, canceled/expired = cancelled) and the same fill (none
 * placed twice under another id, none unknown); every order the journal holds as open or filled is on
 * the exchange (none lost), and none is left half-sent (pending_submit) after the final reconcile.
 * `journal` holds the rows of the emulated exchange only. Returns the problems, one line each.
 */
export function compareLedger(ledger: readonly LedgerEntry[], journal: readonly JournalRow[]): string[] {
  const problems: string[] = [];
  const byCid = new Map(journal.map((r) => [r.clientOrderId, r]));
  const seen = new Set<string>();
  for (const e of ledger) {
    if (seen.has(e.clientOrderId)) problems.push(`${e.clientOrderId} placed twice`);
    seen.add(e.clientOrderId);
    const j = byCid.get(e.clientOrderId);
    if (!j) {
      problems.push(
        `${e.clientOrderId} (${e.status}, filled ${e.filled}) on the exchange is unknown to the journal`,
      );
      continue;
    }
    const want = e.status === 'closed' ? 'filled' : e.status === 'open' ? 'open' : 'cancelled';
    if (j.status !== want)
      problems.push(`${e.clientOrderId} (${j.kind}): exchange ${e.status}, journal ${j.status}`);
    if (Math.abs(j.filled - e.filled) > EPS)
      problems.push(`${e.clientOrderId} (${j.kind}): exchange filled ${e.filled}, journal ${j.filled}`);
  }
  for (const j of journal) {
    if ((j.status === 'open' || j.status === 'filled') && !seen.has(j.clientOrderId))
      problems.push(
        `${j.clientOrderId} (${j.kind}): journal ${j.status} but the exchange has no such order (lost)`,
      );
    if (j.status === 'pending_submit')
      problems.push(`${j.clientOrderId} (${j.kind}): still pending_submit after the final reconcile`);
  }
  return problems;
}

/**
 * Balances at the end: what the platform shows for the account (GET /api/wallet, coin -> total) equals
 * the exchange's own totals, and every base coin's total equals what the journal's fills add up to
 * (bought minus sold; the account starts with `initial`, and the emulator charges fees in the quote).
 */
export function compareBalances(
  shown: Record<string, number>,
  exchange: Record<string, number>,
  journal: readonly JournalRow[],
  initial: Record<string, number>,
  quote: string,
): string[] {
  const problems: string[] = [];
  for (const [coin, total] of Object.entries(shown)) {
    const held = exchange[coin] ?? 0;
    if (Math.abs(total - held) > EPS)
      problems.push(`${coin}: the platform shows ${total}, the exchange holds ${held}`);
  }
  const implied = new Map<string, number>();
  for (const j of journal) {
    const base = j.symbol.split('/')[0] ?? '';
    implied.set(base, (implied.get(base) ?? 0) + (j.side === 'buy' ? j.filled : -j.filled));
  }
  for (const [coin, net] of implied) {
    if (coin === quote) continue;
    const want = (initial[coin] ?? 0) + net;
    const held = exchange[coin] ?? 0;
    if (Math.abs(want - held) > EPS)
      problems.push(`${coin}: the journal's fills add up to ${want}, the exchange holds ${held}`);
  }
  return problems;
}
