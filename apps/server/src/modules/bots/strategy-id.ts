/**
 * The short strategy id of a bot (`b` + 20 hex digits of its uuid, 80 bits): the strategy and the journal
 * name orders `${shortId}-${seq}`; each exchange is sent that name in its own documented form (OKX
 * alphanumeric, Kraken and Coinbase a UUID, Bitfinex an integer, Gate `t-`…), see BotClientIds and
 * packages/venues/src/exchanges/client-ids.ts.
 */
export function strategyIdOf(botId: string): string {
  return `b${botId.replace(/-/g, '').slice(0, 20)}`;
}
