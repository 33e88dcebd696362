-- Bots (Grid Bot DCA first): the bot, its orders journal, closed trades, event log, user settings.
CREATE TABLE bots (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  kind text NOT NULL DEFAULT 'dca',
  exchange text NOT NULL,
  symbol text NOT NULL,
  config jsonb NOT NULL,
  state jsonb NOT NULL,
  status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'stopped', 'error')),
  stop_reason text,
  sl numeric,
  tp_plus numeric,
  ra_enabled boolean NOT NULL DEFAULT false,
  pnl numeric NOT NULL DEFAULT 0,
  started_at timestamptz NOT NULL DEFAULT now(),
  stopped_at timestamptz,
  leased_by text,
  lease_until timestamptz,
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX bots_user_idx ON bots(user_id);
-- One active bot per (user, exchange, symbol).
CREATE UNIQUE INDEX bots_one_active_per_pair ON bots(user_id, exchange, symbol) WHERE status = 'active';
-- Runners lease active bots with FOR UPDATE SKIP LOCKED.
CREATE INDEX bots_active_lease_idx ON bots(lease_until) WHERE status = 'active';

-- Orders journal: a row is written (pending_submit) before the venue is called.
CREATE TABLE bot_orders (
  client_order_id text PRIMARY KEY,
  bot_id uuid NOT NULL REFERENCES bots(id) ON DELETE CASCADE,
  venue_order_id text,
  symbol text NOT NULL,
  side text NOT NULL CHECK (side IN ('buy', 'sell')),
  type text NOT NULL CHECK (type IN ('market', 'limit')),
  price numeric,
  amount numeric NOT NULL,
  role text NOT NULL,
  status text NOT NULL DEFAULT 'pending_submit'
    CHECK (status IN ('pending_submit', 'open', 'filled', 'cancelled', 'rejected')),
  cancel_requested boolean NOT NULL DEFAULT false,
  filled numeric NOT NULL DEFAULT 0,
  avg_price numeric,
  fee numeric NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX bot_orders_bot_status_idx ON bot_orders(bot_id, status);

CREATE TABLE bot_trades (
  id bigserial PRIMARY KEY,
  bot_id uuid NOT NULL REFERENCES bots(id) ON DELETE CASCADE,
  user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  exchange text NOT NULL,
  symbol text NOT NULL,
  lot_key text NOT NULL,
  buy_time timestamptz NOT NULL,
  sell_time timestamptz NOT NULL,
  qty numeric NOT NULL,
  buy_price numeric NOT NULL,
  sell_price numeric NOT NULL,
  pnl_net numeric NOT NULL,
  fees numeric NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX bot_trades_bot_idx ON bot_trades(bot_id, sell_time);
CREATE INDEX bot_trades_user_idx ON bot_trades(user_id, sell_time);
CREATE UNIQUE INDEX bot_trades_lot_uq ON bot_trades(bot_id, lot_key);

CREATE TABLE bot_events (
  id bigserial PRIMARY KEY,
  bot_id uuid NOT NULL REFERENCES bots(id) ON DELETE CASCADE,
  ts timestamptz NOT NULL DEFAULT now(),
  level text NOT NULL DEFAULT 'info' CHECK (level IN ('info', 'warn', 'error')),
  code text NOT NULL,
  params jsonb NOT NULL DEFAULT '{}'::jsonb
);
CREATE INDEX bot_events_bot_idx ON bot_events(bot_id, id);

CREATE TABLE bot_user_settings (
  user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  exchange text NOT NULL DEFAULT '',
  symbol text NOT NULL DEFAULT '',
  apartado text CHECK (apartado IS NULL OR apartado IN ('Spot', 'Perpetual', 'Inverse', 'Margin')),
  leverage integer CHECK (leverage IS NULL OR leverage >= 1),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (user_id, exchange, symbol)
);
