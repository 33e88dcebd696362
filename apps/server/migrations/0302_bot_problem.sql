-- Why an active bot cannot trade right now (pair delisted, key refused, cannot be attached), and the
-- detail. The bot keeps its status 'active' (it holds lots and resumes when the problem is gone); the
-- runner does not lease a bot with a problem.
ALTER TABLE bots ADD COLUMN problem text
  CHECK (problem IS NULL OR problem IN ('pair_delisted', 'auth_failed', 'cannot_run'));
ALTER TABLE bots ADD COLUMN problem_detail text;
