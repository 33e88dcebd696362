-- The API passphrase some exchanges add to key and secret (OKX, KuCoin, Bitget), sealed like them.
ALTER TABLE exchange_connections ADD COLUMN api_password_enc text;
ALTER TABLE exchange_connections ADD CONSTRAINT exchange_connections_password_sealed CHECK (
  api_password_enc IS NULL OR (mode = 'live' AND api_password_enc LIKE 'v1:%')
);
