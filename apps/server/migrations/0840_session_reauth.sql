-- Re-authentication (issue 37 point 8): when the session last confirmed the password (and the TOTP
-- code when 2FA is on) through POST /api/reauth. A session counts as recently authenticated for 5
-- minutes after max(created_at, reauth_at). ip and user_agent are shown in the settings' session list.
ALTER TABLE sessions ADD COLUMN reauth_at timestamptz;
ALTER TABLE sessions ADD COLUMN ip text;
ALTER TABLE sessions ADD COLUMN user_agent text;
