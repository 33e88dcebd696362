-- Security review (issue 37, docs/chain.md): the embedded chain's owner key, generated per install and
-- sealed with the master key; the single-use nonces of the earnings wallet's signed link (EIP-4361
-- style); plan payments that paid less than the plan's price are kept as refused, with the reason.

-- The key that deploys and owns the embedded chain's sale, pool and plans (sealed with the SecretBox).
CREATE TABLE chain_owner_keys (
  chain_id integer PRIMARY KEY,
  address text NOT NULL,
  key_enc text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);

-- A sign-in message handed out for linking `address` to a user: used once, within 10 minutes.
CREATE TABLE chain_wallet_nonces (
  nonce text PRIMARY KEY,
  user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  address text NOT NULL,
  message text NOT NULL,
  expires_at timestamptz NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX chain_wallet_nonces_user ON chain_wallet_nonces (user_id);
CREATE INDEX chain_wallet_nonces_expiry ON chain_wallet_nonces (expires_at);

-- Why a confirmed PlanPaid did not activate its plan (null: it did).
ALTER TABLE chain_plans ADD COLUMN refused text;
