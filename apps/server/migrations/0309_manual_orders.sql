-- Manual orders of the spot and futures screens (issue 16, docs/trading.md). Each order placed on
-- /spot or /futuros is a bot of kind 'manual' run by the bot runner (journal before send, reconcile
-- after a crash): its entry, then its take profit and stop loss as one-cancels-the-other. They are not
-- bots to the user: no bot list, history, count or cap shows them.

-- A user may have many open manual orders on one pair, and a manual futures order may sit next to a
-- derivatives bot on the same market: both one-per-pair rules leave kind 'manual' out.
DROP INDEX IF EXISTS bots_one_active_per_pair;
CREATE UNIQUE INDEX bots_one_active_per_pair ON bots (user_id, kind, exchange, symbol)
  WHERE status = 'active' AND kind <> 'manual';
DROP INDEX IF EXISTS bots_one_derivatives_per_market;
CREATE UNIQUE INDEX bots_one_derivatives_per_market ON bots (user_id, exchange, symbol, market_type)
  WHERE status = 'active' AND market_type <> 'Spot' AND kind <> 'manual';

-- The screens' order lists and the open-orders cap: a user's manual orders on an exchange.
CREATE INDEX bots_manual_idx ON bots (user_id, exchange, status) WHERE kind = 'manual';

-- A round trip of a manual order (its entry and the exit that closed it) is recorded in bot_trades like
-- every bot's, so its PnL is exact and its replay idempotent; `manual` keeps it out of the bot
-- histories (global history, completed pending orders) and their rollups. Set from the bot's kind on
-- insert, so the runner stays kind-neutral; never changes afterwards.
ALTER TABLE bot_trades ADD COLUMN manual boolean NOT NULL DEFAULT false;

CREATE FUNCTION bot_trade_mark_manual() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.manual := EXISTS (SELECT 1 FROM bots b WHERE b.id = NEW.bot_id AND b.kind = 'manual');
  RETURN NEW;
END $$;

CREATE TRIGGER bot_trades_mark_manual BEFORE INSERT ON bot_trades
  FOR EACH ROW EXECUTE FUNCTION bot_trade_mark_manual();

-- The global history's page index, without manual rows (the page query filters on both).
DROP INDEX IF EXISTS bot_trades_user_live_idx;
CREATE INDEX bot_trades_user_live_idx ON bot_trades (user_id, sell_time DESC, id DESC)
  WHERE deleted_at IS NULL AND NOT manual;

-- The rollups of migration 0305, counting bot trades only (no manual row exists before this file, so
-- the rollups need no recount).
CREATE OR REPLACE FUNCTION bot_trade_rollup_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  WITH d AS (
    SELECT user_id, (sell_time AT TIME ZONE 'UTC')::date AS day, exchange, symbol, sum(pnl_net) AS pnl, count(*) AS n
    FROM new_rows WHERE deleted_at IS NULL AND NOT manual GROUP BY 1, 2, 3, 4
  ), daily AS (
    INSERT INTO bot_trade_daily AS r (user_id, day, exchange, quote, pnl, trades)
    SELECT user_id, day, exchange, bot_trade_quote(symbol), sum(pnl), sum(n) FROM d
    GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4
    ON CONFLICT (user_id, day, exchange, quote)
    DO UPDATE SET pnl = r.pnl + excluded.pnl, trades = r.trades + excluded.trades
  )
  INSERT INTO bot_trade_symbols AS r (user_id, exchange, symbol, pnl, trades)
  SELECT user_id, exchange, symbol, sum(pnl), sum(n) FROM d
  GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
  ON CONFLICT (user_id, exchange, symbol)
  DO UPDATE SET pnl = r.pnl + excluded.pnl, trades = r.trades + excluded.trades;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION bot_trade_rollup_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  WITH d AS (
    SELECT user_id, day, exchange, symbol, sum(pnl) AS pnl, sum(n) AS n
    FROM (
      SELECT user_id, (sell_time AT TIME ZONE 'UTC')::date AS day, exchange, symbol, pnl_net AS pnl, 1 AS n
      FROM new_rows WHERE deleted_at IS NULL AND NOT manual
      UNION ALL
      SELECT user_id, (sell_time AT TIME ZONE 'UTC')::date, exchange, symbol, -pnl_net, -1
      FROM old_rows WHERE deleted_at IS NULL AND NOT manual
    ) x
    GROUP BY 1, 2, 3, 4 HAVING sum(n) <> 0 OR sum(pnl) <> 0
  ), daily AS (
    INSERT INTO bot_trade_daily AS r (user_id, day, exchange, quote, pnl, trades)
    SELECT user_id, day, exchange, bot_trade_quote(symbol), sum(pnl), sum(n) FROM d
    GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4
    ON CONFLICT (user_id, day, exchange, quote)
    DO UPDATE SET pnl = r.pnl + excluded.pnl, trades = r.trades + excluded.trades
  )
  INSERT INTO bot_trade_symbols AS r (user_id, exchange, symbol, pnl, trades)
  SELECT user_id, exchange, symbol, sum(pnl), sum(n) FROM d
  GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
  ON CONFLICT (user_id, exchange, symbol)
  DO UPDATE SET pnl = r.pnl + excluded.pnl, trades = r.trades + excluded.trades;
  DELETE FROM bot_trade_symbols r
  USING (SELECT DISTINCT user_id, exchange, symbol FROM old_rows) k
  WHERE r.user_id = k.user_id AND r.exchange = k.exchange AND r.symbol = k.symbol AND r.trades <= 0;
  DELETE FROM bot_trade_daily r
  USING (
    SELECT DISTINCT user_id, (sell_time AT TIME ZONE 'UTC')::date AS day, exchange, bot_trade_quote(symbol) AS quote
    FROM old_rows
  ) k
  WHERE r.user_id = k.user_id AND r.day = k.day AND r.exchange = k.exchange AND r.quote = k.quote
    AND r.trades <= 0;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION bot_trade_rollup_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  WITH d AS (
    SELECT user_id, (sell_time AT TIME ZONE 'UTC')::date AS day, exchange, symbol, -sum(pnl_net) AS pnl, -count(*) AS n
    FROM old_rows WHERE deleted_at IS NULL AND NOT manual GROUP BY 1, 2, 3, 4
  ), daily AS (
    INSERT INTO bot_trade_daily AS r (user_id, day, exchange, quote, pnl, trades)
    SELECT user_id, day, exchange, bot_trade_quote(symbol), sum(pnl), sum(n) FROM d
    GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4
    ON CONFLICT (user_id, day, exchange, quote)
    DO UPDATE SET pnl = r.pnl + excluded.pnl, trades = r.trades + excluded.trades
  )
  INSERT INTO bot_trade_symbols AS r (user_id, exchange, symbol, pnl, trades)
  SELECT user_id, exchange, symbol, sum(pnl), sum(n) FROM d
  GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
  ON CONFLICT (user_id, exchange, symbol)
  DO UPDATE SET pnl = r.pnl + excluded.pnl, trades = r.trades + excluded.trades;
  DELETE FROM bot_trade_symbols r
  USING (SELECT DISTINCT user_id, exchange, symbol FROM old_rows) k
  WHERE r.user_id = k.user_id AND r.exchange = k.exchange AND r.symbol = k.symbol AND r.trades <= 0;
  DELETE FROM bot_trade_daily r
  USING (
    SELECT DISTINCT user_id, (sell_time AT TIME ZONE 'UTC')::date AS day, exchange, bot_trade_quote(symbol) AS quote
    FROM old_rows
  ) k
  WHERE r.user_id = k.user_id AND r.day = k.day AND r.exchange = k.exchange AND r.quote = k.quote
    AND r.trades <= 0;
  RETURN NULL;
END $$;
