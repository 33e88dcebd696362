export { BotRunner } from './runner';
export type { BotHandle } from './bot-handle';
export {
  strategyIdOf,
  type ActionStore,
  type BotActionRow,
  type KindRegistry,
  type RunnerDeps,
  type RunnerStore,
  type StepSource,
} from './types';
