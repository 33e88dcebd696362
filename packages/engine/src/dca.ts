import type { DcaConfig, DcaState, DcaSummary, StepResult, StrategyEvent } from './strategy';

/** Thrown by createDcaBot for a configuration the strategy cannot run. */
export class DcaConfigError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'DcaConfigError';
  }
}

export function createDcaBot(_botId: string, _config: DcaConfig): DcaState {
  throw new Error('not implemented yet');
}

export function stepDca(_state: DcaState, _event: StrategyEvent): StepResult<DcaState> {
  throw new Error('not implemented yet');
}

export function inRange(_state: DcaState, _price: number): boolean {
  throw new Error('not implemented yet');
}

export function summarizeDca(_state: DcaState, _price: number): DcaSummary {
  throw new Error('not implemented yet');
}
