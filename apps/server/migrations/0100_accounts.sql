-- Accounts: mailed codes (sign-up, password change) and TOTP two-factor state.
-- code_hash is HMAC-SHA256 of the code with a key derived from the master key; never the code.
CREATE TABLE email_codes (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  email text NOT NULL,
  purpose text NOT NULL CHECK (purpose IN ('register', 'password_change')),
  user_id uuid REFERENCES users(id) ON DELETE CASCADE,
  code_hash text,
  attempts integer NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  consumed_at timestamptz
);
CREATE INDEX email_codes_email_purpose_idx ON email_codes(email, purpose, created_at);

-- secret_enc / pending_secret_enc are sealed with the master key (AES-256-GCM).
CREATE TABLE user_totp (
  user_id uuid PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
  secret_enc text,
  enabled boolean NOT NULL DEFAULT false,
  pending_secret_enc text,
  last_used_step bigint,
  failed_attempts integer NOT NULL DEFAULT 0,
  locked_until timestamptz,
  updated_at timestamptz NOT NULL DEFAULT now()
);
