-- Issue 38 point 9: live keys are checked again once a day and on every resume (docs/exchanges.md "Key
-- re-check"). A key that gained withdrawal rights pauses its bots with the problem 'key_can_withdraw'
-- (a revoked key uses the existing 'auth_failed'); the connection remembers what the last check found, and
-- when, so the settings page can show it and a restart does not lose it.
ALTER TABLE bots DROP CONSTRAINT IF EXISTS bots_problem_check;
ALTER TABLE bots ADD CONSTRAINT bots_problem_check
  CHECK (problem IS NULL OR problem IN ('pair_delisted', 'auth_failed', 'cannot_run', 'key_can_withdraw'));
-- NULL: the last check found the key working and trade-only (or it was never re-checked since connect).
ALTER TABLE exchange_connections ADD COLUMN key_problem text
  CHECK (key_problem IS NULL OR key_problem IN ('revoked', 'can_withdraw'));
ALTER TABLE exchange_connections ADD COLUMN key_checked_at timestamptz;
