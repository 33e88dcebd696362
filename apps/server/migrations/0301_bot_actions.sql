-- User actions on a bot leased by another runner process (several processes on PostgreSQL): the
-- process that got the request writes the action here and the lease holder carries it out, so one
-- strategy instance only ever steps a bot. status: pending → running → done | failed.
CREATE TABLE bot_actions (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  bot_id uuid NOT NULL REFERENCES bots(id) ON DELETE CASCADE,
  runner_id text NOT NULL,
  event jsonb NOT NULL,
  stop_timeout_ms integer,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'running', 'done', 'failed')),
  ok boolean,
  error text,
  created_at timestamptz NOT NULL DEFAULT now(),
  done_at timestamptz
);
CREATE INDEX bot_actions_pending_idx ON bot_actions(runner_id) WHERE status = 'pending';
