-- Per-account login backoff (issue 37 point 6; accounts/login-backoff.ts): failed logins per email,
-- across every client address. Keyed by the normalized email (known or not, so a 429 does not tell
-- which emails have an account). blocked_until: no password is checked for this email before it.
-- notified_at: when the owner was last mailed about repeated failures (at most once per 24 hours).
CREATE TABLE login_backoff (
  email text PRIMARY KEY,
  failures integer NOT NULL DEFAULT 0,
  last_failure_at timestamptz NOT NULL,
  blocked_until timestamptz,
  notified_at timestamptz
);
CREATE INDEX login_backoff_last_failure_idx ON login_backoff(last_failure_at);
