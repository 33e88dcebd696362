-- The simulated market survives a restart: the walk's state (one row) and the candles built so far.
CREATE TABLE sim_state (
  id smallint PRIMARY KEY DEFAULT 1 CHECK (id = 1),
  state jsonb NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE sim_candles (
  exchange text NOT NULL,
  symbol text NOT NULL,
  timeframe text NOT NULL,
  ts bigint NOT NULL,
  open double precision NOT NULL,
  high double precision NOT NULL,
  low double precision NOT NULL,
  close double precision NOT NULL,
  volume double precision NOT NULL,
  PRIMARY KEY (exchange, symbol, timeframe, ts)
);
