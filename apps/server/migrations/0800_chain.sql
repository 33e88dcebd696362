-- The platform token's chain (issue 17, docs/chain.md, docs/plans.md). The chain's own state file is not
-- the platform's database: what users did there (purchases, stakes, rewards, plan payments) is kept here,
-- built from the contracts' events.

-- The embedded chain's contracts, recorded on first deployment; deployed again only when they have no code.
CREATE TABLE chain_deployments (
  chain_id integer PRIMARY KEY,
  token text NOT NULL,
  sale text NOT NULL,
  pool text NOT NULL,
  plans text NOT NULL,
  usdt text NOT NULL,
  usdc text NOT NULL,
  owner text NOT NULL,
  deployed_at timestamptz NOT NULL DEFAULT now()
);

-- One wallet per user for the earnings pool, and one user per wallet (checksummed address).
CREATE TABLE chain_wallets (
  user_id uuid PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
  address text NOT NULL UNIQUE,
  linked_at timestamptz NOT NULL DEFAULT now()
);

-- Events of the sale, the pool and the plan payments, as the indexer read them. A row is confirmed once
-- CHAIN_CONFIRMATIONS blocks sit on it and its block is still the chain's block at that height; an event
-- whose block was replaced (a reorg) is deleted. Integers in args are decimal strings.
CREATE TABLE chain_events (
  chain_id integer NOT NULL,
  block_hash text NOT NULL,
  log_index integer NOT NULL,
  block_number bigint NOT NULL,
  block_time timestamptz NOT NULL,
  tx_hash text NOT NULL,
  contract text NOT NULL CHECK (contract IN ('sale', 'pool', 'plans')),
  name text NOT NULL,
  args jsonb NOT NULL,
  -- The user an event names (staker, buyer, payer), lowercase, for the per-user lists.
  account text,
  confirmed boolean NOT NULL DEFAULT false,
  PRIMARY KEY (chain_id, block_hash, log_index)
);
CREATE INDEX chain_events_block ON chain_events (chain_id, block_number);
CREATE INDEX chain_events_unconfirmed ON chain_events (chain_id, block_number) WHERE NOT confirmed;
CREATE INDEX chain_events_account ON chain_events (chain_id, account, name, block_number);
CREATE INDEX chain_events_tx ON chain_events (tx_hash);

-- How far the indexer has read, per chain and set of contracts (a redeployment starts again at 0).
CREATE TABLE chain_cursors (
  chain_id integer NOT NULL,
  contracts text NOT NULL,
  block_number bigint NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (chain_id, contracts)
);

-- The bytes32 a user passes to payPlan(plan, ref): a payment names its user without a wallet link.
CREATE TABLE chain_payment_refs (
  user_id uuid PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
  ref text NOT NULL UNIQUE CHECK (ref ~ '^0x[0-9a-f]{64}$'),
  created_at timestamptz NOT NULL DEFAULT now()
);

-- Confirmed plan payments, one a PlanPaid event (the plan's periods are computed from them in order,
-- docs/plans.md). A reorg that removes the event removes its row.
CREATE TABLE chain_plans (
  chain_id integer NOT NULL,
  block_hash text NOT NULL,
  log_index integer NOT NULL,
  user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  plan smallint NOT NULL CHECK (plan IN (1, 2, 3)),
  tx_hash text NOT NULL,
  tokens numeric NOT NULL,
  usd_cents integer NOT NULL,
  paid_at timestamptz NOT NULL,
  confirmed_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (chain_id, block_hash, log_index),
  FOREIGN KEY (chain_id, block_hash, log_index) REFERENCES chain_events (chain_id, block_hash, log_index)
    ON DELETE CASCADE
);
CREATE INDEX chain_plans_user ON chain_plans (user_id, paid_at);

-- The pool's size every 10 minutes, for the earnings chart (kept 90 days).
CREATE TABLE chain_snapshots (
  chain_id integer NOT NULL,
  taken_at timestamptz NOT NULL,
  pool_available numeric NOT NULL,
  total_staked numeric NOT NULL,
  PRIMARY KEY (chain_id, taken_at)
);

-- The faucet's last claim per user (one claim per 10 minutes).
CREATE TABLE chain_faucet_claims (
  user_id uuid PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
  claimed_at timestamptz NOT NULL
);
