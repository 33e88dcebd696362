import {
  CLASSIC_DCA_MESSAGES,
  CLASSIC_DCA_OPTIONS,
  DERIVATIVES_MESSAGES,
  TP_VNC_DEFAULT,
  TP_VNC_OPTIONS,
  type StartBotBody,
} from '@bytx/contract';
import {
  ClassicDcaConfigError,
  createClassicDca,
  type Candle,
  type ClassicDcaConfig,
  type ClassicDcaState,
} from '@bytx/engine';
import { badRequest } from '../../../../lib/errors';
import { parseLooseNumber } from '../../bot-input';
import { dcaMarketRules } from '../../market-rules';
import { parseDcaStart, type DcaStartParams, type StartParamDeps } from '../../start-params';

export interface ClassicStartParams extends DcaStartParams {
  tpVnc: number;
  r: boolean;
  rOs: boolean;
  trendFilter: boolean;
  smartAveraging: boolean;
}

/**
 * The classic DCA start form (`POST /api/start_bot`), shared by the start call and the backtest: LONG
 * only on derivatives, the form's common checks (start-params.ts), then TP VNC. `afterForm` runs
 * between the common checks and TP VNC (the start call's account checks, in the spec's order).
 */
export async function parseClassicStart(
  body: StartBotBody,
  deps: StartParamDeps,
  afterForm?: (p: DcaStartParams) => Promise<void>,
): Promise<ClassicStartParams> {
  if (body.direction === 'SHORT' && (body.apartado ?? 'Spot') !== 'Spot') {
    throw badRequest(DERIVATIVES_MESSAGES.classicLongOnly, { field: 'direction' });
  }
  const p = await parseDcaStart(body, deps);
  if (afterForm) await afterForm(p);
  const tpVnc = body.tp_vnc === undefined ? TP_VNC_DEFAULT : parseLooseNumber(body.tp_vnc);
  if (tpVnc === null || !(TP_VNC_OPTIONS as readonly number[]).includes(tpVnc)) {
    throw badRequest(CLASSIC_DCA_MESSAGES.badTpVnc, { field: 'tp_vnc' });
  }
  return {
    ...p,
    tpVnc,
    r: body.r ?? false,
    rOs: body.r_os ?? false,
    trendFilter: body.trend_filter ?? true,
    smartAveraging: body.smart_averaging ?? true,
  };
}

/** The engine config of a checked form (SL and TP+ start off). */
export function classicConfigOf(p: ClassicStartParams): ClassicDcaConfig {
  return {
    symbol: p.symbol,
    amount: p.amount,
    tpPct: p.tp,
    sepPct: p.sep,
    os: p.os,
    market: dcaMarketRules(p.market),
    sl: null,
    tpPlus: null,
    r: p.r,
    rOs: p.rOs,
    trendFilter: p.trendFilter,
    smartAveraging: p.smartAveraging,
    smartAmount: CLASSIC_DCA_OPTIONS.smartAmount,
    maPeriod: CLASSIC_DCA_OPTIONS.maPeriod,
    candleMs: CLASSIC_DCA_OPTIONS.candleMinutes * 60_000,
    tpVncPct: p.tpVnc,
  };
}

/** The bot's first state, its trend rule seeded with `history`; a config the engine refuses is a 400. */
export function createClassicState(
  botId: string,
  config: ClassicDcaConfig,
  history: Candle[],
): ClassicDcaState {
  try {
    return createClassicDca(botId, config, history);
  } catch (err) {
    if (err instanceof ClassicDcaConfigError) throw badRequest(err.message);
    throw err;
  }
}
