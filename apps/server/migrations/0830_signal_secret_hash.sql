-- Issue 37 point 9: a Signal bot's webhook secret is shown once (at creation and on rotation) and stored
-- only as the SHA-256 hex of the secret (32 random bytes: a hash is as strong as the secret, no salt or
-- slow hash is needed), compared in constant time. secret_enc (the sealed secret of migration 0308) is
-- kept only until the server converts it: plain values are hashed here; sealed ones (`v1:`/`v2:`, which
-- need the master key) are hashed by the server on start (modules/bots/signal/secrets.ts), which then
-- clears secret_enc. Nothing can read a secret back afterwards.
ALTER TABLE signal_bots ADD COLUMN secret_hash text;
ALTER TABLE signal_bots ALTER COLUMN secret_enc DROP NOT NULL;
UPDATE signal_bots
  SET secret_hash = encode(sha256(convert_to(secret_enc, 'UTF8')), 'hex'), secret_enc = NULL
  WHERE position(':' IN secret_enc) = 0;
ALTER TABLE signal_bots ADD CONSTRAINT signal_bots_secret_ck
  CHECK (secret_hash IS NOT NULL OR secret_enc IS NOT NULL);
-- Why the secret was last replaced: 'user' (the rotate call) or 'password_change' (the owner's password
-- changed: the page tells the owner to rotate, since the new secret was shown to no one).
ALTER TABLE signal_bots ADD COLUMN secret_rotated_reason text
  CHECK (secret_rotated_reason IN ('user', 'password_change'));
