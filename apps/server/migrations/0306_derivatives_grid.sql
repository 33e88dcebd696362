-- Derivatives, SHORT and the Grid bot (issue 14).
-- The market a bot trades: the user's pair (bots.symbol, e.g. BTC/USDT) on its Spot, Perpetual
-- (BTC/USDT:USDT), Inverse (BTC/USD:BTC) or Margin (BTC/USDT, isolated) market; every existing bot is Spot.
ALTER TABLE bots ADD COLUMN market_type text NOT NULL DEFAULT 'Spot'
  CHECK (market_type IN ('Spot', 'Perpetual', 'Inverse', 'Margin'));
-- The leverage a derivatives bot's positions use (set on the exchange before its first order).
ALTER TABLE bots ADD COLUMN leverage integer NOT NULL DEFAULT 1 CHECK (leverage BETWEEN 1 AND 200);
-- The exchange keeps one position per market: one active derivatives bot per account and market,
-- whatever its kind (a Spot bot holds no position, so Spot bots are not limited here).
CREATE UNIQUE INDEX bots_one_derivatives_per_market ON bots (user_id, exchange, symbol, market_type)
  WHERE status = 'active' AND market_type <> 'Spot';
-- A paper account's derivatives part (PaperDerivativesState: swap wallet, positions, leverage per symbol,
-- margin reserved by resting orders, recent liquidations), saved whole; NULL: an account saved before
-- derivatives existed (it loads with the seed).
ALTER TABLE paper_accounts ADD COLUMN derivatives jsonb;
