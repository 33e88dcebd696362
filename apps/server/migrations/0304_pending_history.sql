-- Pending-order actions and the global history (issue 13).
-- The lot a trade closed (one lot may be sold in parts: each sale is its own row, keyed by lot_key);
-- rows written before this migration were one per lot, so their lot_key is the lot id.
ALTER TABLE bot_trades ADD COLUMN lot_id text;
UPDATE bot_trades SET lot_id = lot_key WHERE lot_id IS NULL;
-- A user deletes history rows from the history pages; the row is kept (the bot's realized PnL and the
-- idempotent replay of trades by lot_key stay exact) and hidden from every list and total.
ALTER TABLE bot_trades ADD COLUMN deleted_at timestamptz;
CREATE INDEX bot_trades_user_live_idx ON bot_trades (user_id, sell_time DESC, id DESC) WHERE deleted_at IS NULL;
CREATE INDEX bot_trades_user_lot_idx ON bot_trades (user_id, lot_id);
-- Periodic server jobs (the dust auto-close every 20 minutes): when each runs next, survives restarts;
-- a process claims a due run with one UPDATE so two processes never run it together.
CREATE TABLE scheduled_jobs (
  name text PRIMARY KEY,
  next_run_at timestamptz NOT NULL,
  claimed_by text,
  claimed_until timestamptz,
  last_run_at timestamptz,
  last_result jsonb
);
