import { createDcaBot, DcaConfigError, type DcaConfig, type DcaState } from '@bytx/engine';
import { badRequest } from '../../../../lib/errors';
import { isDerivatives } from '../../derivatives';
import { dcaMarketRules } from '../../market-rules';
import {
  parseDcaStart,
  type DcaStartFields,
  type DcaStartParams,
  type StartParamDeps,
} from '../../start-params';

/**
 * The Grid Bot DCA start form's parameters (`POST /api/start_bot_dca`), shared by the start call and the
 * backtest: the form checked with the spec's messages (start-params.ts), the engine config built from it.
 */
export function parseGridDcaStart(body: DcaStartFields, deps: StartParamDeps): Promise<DcaStartParams> {
  return parseDcaStart(body, deps);
}

/** The engine config of a checked form (SL, TP+ and automatic relocation start off). */
export function gridDcaConfigOf(p: DcaStartParams): DcaConfig {
  return {
    symbol: p.symbol,
    amount: p.amount,
    tpPct: p.tp,
    sepPct: p.sep,
    os: p.os,
    direction: p.direction,
    derivatives: isDerivatives(p.apartado),
    market: dcaMarketRules(p.market),
    sl: null,
    tpPlus: null,
    raEnabled: false,
  };
}

/** The bot's first state; a config the engine refuses is a 400 with its message. */
export function createGridDcaState(botId: string, config: DcaConfig): DcaState {
  try {
    return createDcaBot(botId, config);
  } catch (err) {
    if (err instanceof DcaConfigError) throw badRequest(err.message);
    throw err;
  }
}
