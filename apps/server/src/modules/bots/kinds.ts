import {
  arbitrageBot,
  classicDca,
  classicVnc,
  gridBot,
  gridBotDca,
  manualOrder,
  signalBot,
} from '@bytx/engine';
import type { AnyStrategy, KindRegistry } from './runner/types';

/**
 * Every bot kind the runner can run, by `bots.kind`: its engine strategy. A new kind adds its strategy
 * here and its own folder (routes, service) next to the others; the runner does not change.
 */
export const botKinds: KindRegistry = new Map<string, AnyStrategy>([
  [gridBotDca.kind, gridBotDca],
  [classicDca.kind, classicDca],
  [classicVnc.kind, classicVnc],
  [gridBot.kind, gridBot],
  [arbitrageBot.kind, arbitrageBot],
  [signalBot.kind, signalBot],
  [manualOrder.kind, manualOrder],
]);
