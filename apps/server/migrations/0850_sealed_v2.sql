-- Sealed values name their master key and carry associated data (issue 37 point 5): SecretBox writes
-- 'v2:<key id>:<iv>:<tag>:<ciphertext>'; 'v1:...' values of older versions stay valid until the server
-- re-seals them on start. Range 0850-0859: master key and sealed secrets.
ALTER TABLE exchange_connections DROP CONSTRAINT exchange_connections_keys_by_mode;
ALTER TABLE exchange_connections ADD CONSTRAINT exchange_connections_keys_by_mode CHECK (
  (mode = 'paper' AND api_key_enc IS NULL AND api_secret_enc IS NULL)
  OR (
    mode = 'live'
    AND (api_key_enc LIKE 'v1:%' OR api_key_enc LIKE 'v2:%')
    AND (api_secret_enc LIKE 'v1:%' OR api_secret_enc LIKE 'v2:%')
  )
);
ALTER TABLE exchange_connections DROP CONSTRAINT exchange_connections_password_sealed;
ALTER TABLE exchange_connections ADD CONSTRAINT exchange_connections_password_sealed CHECK (
  api_password_enc IS NULL
  OR (mode = 'live' AND (api_password_enc LIKE 'v1:%' OR api_password_enc LIKE 'v2:%'))
);
