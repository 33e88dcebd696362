import type { BotTestIds } from './testIds';

/**
 * What tells one bot screen from the other in the parts they share: the test-id naming, the
 * react-query scope its queries live under (`['dca', …]`, `['dashboard', …]`), and the i18n
 * namespace of its own texts (the pending orders' limit column, the event log's title and codes).
 */
export interface BotScreen {
  ids: BotTestIds;
  scope: string;
  ns: string;
}
