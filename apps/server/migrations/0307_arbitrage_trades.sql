-- Arbitrage (issue 15): a round trip buys on one exchange and sells on another. bot_trades.exchange is
-- where the buy was made; sell_exchange where the sell was when the strategy names it (arbitrage, also
-- for a leg unwound on its own venue), NULL for every other kind (bought and sold on `exchange`).
ALTER TABLE bot_trades ADD COLUMN sell_exchange text;
-- One active arbitrage bot per user (its inventory is the bot's budget on both venues, whatever the
-- symbol): checked by the start call, enforced here against two concurrent starts.
CREATE UNIQUE INDEX bots_one_active_arbitrage ON bots (user_id) WHERE status = 'active' AND kind = 'arbitrage';
