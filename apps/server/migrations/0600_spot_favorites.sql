-- Trading screens (issue 16, docs/trading.md): the pairs a user starred on /spot and /futuros, kept on
-- the server so they follow the user to another browser. A pair as the screens name it ('BTC/USDT').
CREATE TABLE spot_favorites (
  user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  symbol text NOT NULL CHECK (length(symbol) BETWEEN 3 AND 40),
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (user_id, symbol)
);
