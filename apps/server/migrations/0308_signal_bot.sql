-- Signal bot (issue 15 §2): each bot (bots.kind = 'signal') has a webhook secret, and every signal
-- posted to its webhook is logged here, accepted or rejected and why, with the orders it produced.
CREATE TABLE signal_bots (
  bot_id uuid PRIMARY KEY REFERENCES bots(id) ON DELETE CASCADE,
  -- The webhook secret sealed with the master key (SecretBox): revealed to the owner, compared in
  -- constant time on every signal.
  secret_enc text NOT NULL,
  -- The last sequence number given to an accepted signal (bumped in the transaction that records it).
  last_seq integer NOT NULL DEFAULT 0,
  secret_rotated_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE signal_events (
  id bigserial PRIMARY KEY,
  bot_id uuid NOT NULL REFERENCES bots(id) ON DELETE CASCADE,
  -- Per-bot sequence of accepted signals (the strategy's idempotency key); NULL when rejected/duplicate.
  seq integer,
  -- The payload's `id` (TradingView's {{timenow}}, any text): one accepted signal per id and bot.
  signal_key text,
  received_at timestamptz NOT NULL DEFAULT now(),
  source_ip text,
  -- The payload as received without its secret (NULL when the body was not a JSON object).
  payload jsonb,
  action text,
  amount numeric,
  status text NOT NULL
    CHECK (status IN ('accepted', 'executed', 'skipped', 'rejected', 'duplicate')),
  reason text,
  reason_text text,
  -- [{client_order_id, side, amount, price, status}] from the bot's journal (bot_orders).
  orders jsonb NOT NULL DEFAULT '[]'::jsonb,
  executed_at timestamptz,
  CHECK ((seq IS NULL) = (status IN ('rejected', 'duplicate')))
);
-- Accepted signals: one per seq and one per id (the index decides between concurrent duplicates).
CREATE UNIQUE INDEX signal_events_seq_uq ON signal_events(bot_id, seq) WHERE seq IS NOT NULL;
CREATE UNIQUE INDEX signal_events_key_uq ON signal_events(bot_id, signal_key)
  WHERE seq IS NOT NULL AND signal_key IS NOT NULL;
-- The log, newest first and paged.
CREATE INDEX signal_events_bot_idx ON signal_events(bot_id, id DESC);
-- Signals recorded but not yet executed (re-fed at start, in seq order).
CREATE INDEX signal_events_accepted_idx ON signal_events(bot_id, seq) WHERE status = 'accepted';
