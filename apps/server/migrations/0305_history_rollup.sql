-- The global history's totals (issue 13, docs/bots/history.md). Two rollups of the live (not
-- deleted) rows of bot_trades, kept exact by statement-level triggers in the same transaction as every
-- insert, soft delete, update or delete:
--   bot_trade_symbols  per user, exchange and symbol: PnL and trades (the page's totals and token list)
--   bot_trade_daily    per user, UTC day of the sale, exchange and quote: PnL and trades (the chart)
-- so the history page never sums a user's 100,000 trades. No foreign keys: when a user or a bot is
-- deleted, the cascade into bot_trades takes the rows back out (a group left with no trade is removed).
CREATE TABLE bot_trade_symbols (
  user_id uuid NOT NULL,
  exchange text NOT NULL,
  symbol text NOT NULL,
  pnl numeric NOT NULL DEFAULT 0,
  trades integer NOT NULL DEFAULT 0,
  PRIMARY KEY (user_id, exchange, symbol)
);

CREATE TABLE bot_trade_daily (
  user_id uuid NOT NULL,
  day date NOT NULL,
  exchange text NOT NULL,
  quote text NOT NULL,
  pnl numeric NOT NULL DEFAULT 0,
  trades integer NOT NULL DEFAULT 0,
  PRIMARY KEY (user_id, day, exchange, quote)
);

-- The quote of a stored symbol: 'ETH/BTC' → 'BTC', 'BTC/USDT:USDT' → 'USDT'.
CREATE FUNCTION bot_trade_quote(symbol text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE
  AS $$ SELECT split_part(split_part(symbol, '/', 2), ':', 1) $$;

INSERT INTO bot_trade_symbols (user_id, exchange, symbol, pnl, trades)
SELECT user_id, exchange, symbol, sum(pnl_net), count(*)
FROM bot_trades WHERE deleted_at IS NULL GROUP BY 1, 2, 3;

INSERT INTO bot_trade_daily (user_id, day, exchange, quote, pnl, trades)
SELECT user_id, (sell_time AT TIME ZONE 'UTC')::date, exchange, bot_trade_quote(symbol), sum(pnl_net), count(*)
FROM bot_trades WHERE deleted_at IS NULL GROUP BY 1, 2, 3, 4;

-- Each trigger turns its transition tables into signed deltas per (user, day, exchange, symbol) and adds
-- them to both rollups in one statement. Groups are locked in key order (ORDER BY), so two writers
-- touching the same groups cannot deadlock.
CREATE FUNCTION bot_trade_rollup_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  WITH d AS (
    SELECT user_id, (sell_time AT TIME ZONE 'UTC')::date AS day, exchange, symbol, sum(pnl_net) AS pnl, count(*) AS n
    FROM new_rows WHERE deleted_at IS NULL GROUP BY 1, 2, 3, 4
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

CREATE FUNCTION bot_trade_rollup_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  WITH d AS (
    SELECT user_id, day, exchange, symbol, sum(pnl) AS pnl, sum(n) AS n
    FROM (
      SELECT user_id, (sell_time AT TIME ZONE 'UTC')::date AS day, exchange, symbol, pnl_net AS pnl, 1 AS n
      FROM new_rows WHERE deleted_at IS NULL
      UNION ALL
      SELECT user_id, (sell_time AT TIME ZONE 'UTC')::date, exchange, symbol, -pnl_net, -1
      FROM old_rows WHERE deleted_at IS NULL
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

CREATE FUNCTION bot_trade_rollup_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  WITH d AS (
    SELECT user_id, (sell_time AT TIME ZONE 'UTC')::date AS day, exchange, symbol, -sum(pnl_net) AS pnl, -count(*) AS n
    FROM old_rows WHERE deleted_at IS NULL GROUP BY 1, 2, 3, 4
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

CREATE TRIGGER bot_trades_rollup_insert AFTER INSERT ON bot_trades
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION bot_trade_rollup_insert();
CREATE TRIGGER bot_trades_rollup_update AFTER UPDATE ON bot_trades
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION bot_trade_rollup_update();
CREATE TRIGGER bot_trades_rollup_delete AFTER DELETE ON bot_trades
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION bot_trade_rollup_delete();
