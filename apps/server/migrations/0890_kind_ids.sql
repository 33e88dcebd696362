-- One id per bot kind everywhere (issue 39): the engine strategy's `kind`, the server's and the web app's
-- folder, the backtest kind and the stored value are the same id (packages/contract/src/kinds.ts).
-- Renamed: 'dca' and 'grid_dca' -> 'grid-dca', 'classic_dca' -> 'classic-dca', 'classic_vnc' -> 'classic-vnc';
-- 'grid', 'arbitrage', 'signal' and 'manual' keep theirs. Every row of every table holding a kind.

-- bots.kind: every kind's rows, any status. Every row of a kind gets the same new id, so the unique
-- indexes on (user_id, kind, exchange, symbol) cannot meet a duplicate; the partial indexes name only
-- 'manual' and 'arbitrage', which keep their ids.
UPDATE bots SET kind = CASE kind
    WHEN 'dca' THEN 'grid-dca'
    WHEN 'grid_dca' THEN 'grid-dca'
    WHEN 'classic_dca' THEN 'classic-dca'
    WHEN 'classic_vnc' THEN 'classic-vnc'
    ELSE kind
  END
  WHERE kind IN ('dca', 'grid_dca', 'classic_dca', 'classic_vnc');
ALTER TABLE bots ALTER COLUMN kind SET DEFAULT 'grid-dca';

-- backtests.kind and its CHECK (0700_backtests.sql, unnamed there: Postgres names it backtests_kind_check).
ALTER TABLE backtests DROP CONSTRAINT IF EXISTS backtests_kind_check;
UPDATE backtests SET kind = CASE kind
    WHEN 'grid_dca' THEN 'grid-dca'
    WHEN 'classic_dca' THEN 'classic-dca'
    ELSE kind
  END
  WHERE kind IN ('grid_dca', 'classic_dca');
ALTER TABLE backtests ADD CONSTRAINT backtests_kind_check CHECK (kind IN ('grid-dca', 'classic-dca', 'grid'));
