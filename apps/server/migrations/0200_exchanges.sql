-- Exchange connections (live keys sealed with AES-256-GCM, or paper), the paper accounts' state and
-- known deposit addresses. Range 0200-0299 belongs to exchanges / paper venue / market data / wallet.
CREATE TABLE exchange_connections (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  exchange text NOT NULL,
  mode text NOT NULL CHECK (mode IN ('paper', 'live')),
  -- 'v1:<iv>:<tag>:<ciphertext>' from SecretBox; NULL for paper. Never the plain key or secret.
  api_key_enc text,
  api_secret_enc text,
  created_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT exchange_connections_user_exchange_key UNIQUE (user_id, exchange),
  CONSTRAINT exchange_connections_keys_by_mode CHECK (
    (mode = 'paper' AND api_key_enc IS NULL AND api_secret_enc IS NULL)
    OR (mode = 'live' AND api_key_enc LIKE 'v1:%' AND api_secret_enc LIKE 'v1:%')
  )
);

-- PaperVenue's persistence (the DB PaperStore): the account row holds balances and the order
-- sequence, each order its own row, upserted by id on every change, so balances and resting orders
-- survive a restart.
CREATE TABLE paper_accounts (
  user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  exchange text NOT NULL,
  balances jsonb NOT NULL,
  seq bigint NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (user_id, exchange)
);

CREATE TABLE paper_orders (
  user_id uuid NOT NULL,
  exchange text NOT NULL,
  order_id text NOT NULL,
  client_order_id text,
  symbol text NOT NULL,
  status text NOT NULL,
  data jsonb NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (user_id, exchange, order_id),
  FOREIGN KEY (user_id, exchange) REFERENCES paper_accounts(user_id, exchange) ON DELETE CASCADE
);
CREATE INDEX paper_orders_status_idx ON paper_orders(user_id, exchange, status);

CREATE TABLE wallet_addresses (
  user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  exchange text NOT NULL,
  coin text NOT NULL,
  address text NOT NULL,
  tag text,
  network text,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (user_id, exchange, coin)
);
