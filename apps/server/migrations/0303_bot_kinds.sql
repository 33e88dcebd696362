-- One runner for every bot kind (issue 12).
-- An order may go to another exchange than the bot's own (a strategy trading two markets names one);
-- NULL is the bot's own exchange, so every existing row keeps its meaning.
ALTER TABLE bot_orders ADD COLUMN exchange text;
-- One active bot per user, pair AND kind: a classic DCA bot and a Grid Bot DCA may share a pair
-- (each only ever touches the orders carrying its own client-id prefix).
DROP INDEX IF EXISTS bots_one_active_per_pair;
CREATE UNIQUE INDEX bots_one_active_per_pair ON bots (user_id, kind, exchange, symbol) WHERE status = 'active';
