import { notifications } from '@mantine/notifications';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ApiError, errorMessage } from '../../../shared/api/client';
import { exchangeName } from '../../../shared/bots/format';
import type { PresetKey } from '../../../shared/bots/presets';
import {
  defaultRange,
  gridApi,
  roundPrice,
  validateGridStart,
  type GridMarketType,
  type GridPosition,
  type GridStartInput,
  type ProfitCurrency,
} from '../api/grid';

const MAX_SUGGESTIONS = 10;

/** A grid preset: the range around the price (± %), the step (%) and the amount per level (quote). */
export interface GridPreset {
  range: string;
  step: string;
  amount: string;
}

/**
 * Conservative: a narrow ±3 % range at 1 % steps (7 levels of 10, ≈ 70 in all). Balanced: the spec's
 * ±5 % and 0.5 % (21 levels of 20). Aggressive: ±10 % at 0.5 % (41 levels of 25, ≈ 1,000), far under
 * the server's 200 levels (GRID_MAX_LEVELS) and its 100 % step.
 */
export const GRID_PRESETS: Record<PresetKey, GridPreset> = {
  conservative: { range: '3', step: '1', amount: '10' },
  balanced: { range: '5', step: '0.5', amount: '20' },
  aggressive: { range: '10', step: '0.5', amount: '25' },
};

/** High and low `range` % around the price, as the inputs show them. */
const rangeAround = (price: number, range: string) => ({
  high: String(roundPrice(price * (1 + Number(range) / 100))),
  low: String(roundPrice(price * (1 - Number(range) / 100))),
});

/**
 * The state of 'Grid Bot Settings' (spec part 2 §2 "Grid Bot page", §5 "Grid start"): exchange and its
 * connection, market type, the pair search (a pair is picked from the suggestions, which fills high,
 * low and step from its price), leverage, high, low, profit currency, amount per level, step %,
 * position, and the start with its checks in the spec's order.
 */
export function useGridForm(
  userId: string,
  email: string | null | undefined,
  enabled: boolean,
  events: {
    /** A grid started (its id, when the server answers it). */
    onStarted?: (id: string | null) => void;
    /** The exchange or the pair changed: the chart follows the settings again. */
    onPairChanged?: () => void;
  } = {},
) {
  const { t } = useTranslation();
  const qc = useQueryClient();
  const [exchange, setExchange] = useState('');
  const [marketType, setMarketType] = useState<GridMarketType>('spot');
  const [query, setQuery] = useState('');
  const [pair, setPair] = useState('');
  const [price, setPrice] = useState<number | null>(null);
  const [leverage, setLeverage] = useState(1);
  const [high, setHigh] = useState('');
  const [low, setLow] = useState('');
  const [profitCurrency, setProfitCurrency] = useState<ProfitCurrency>('quote');
  const [amount, setAmount] = useState('');
  const [step, setStep] = useState('');
  const [position, setPosition] = useState<GridPosition>('long');
  /** The preset last applied (its range is used when a pair is picked after it), until a figure is edited. */
  const [preset, setPreset] = useState<PresetKey | null>(null);
  const edited =
    <T>(set: (v: T) => void) =>
    (v: T) => {
      setPreset(null);
      set(v);
    };
  /** Short and neutral grids need a derivatives market: Spot is long only. */
  const chooseMarketType = (m: GridMarketType) => {
    setMarketType(m);
    if (m === 'spot') setPosition('long');
  };
  const [error, setError] = useState<string | null>(null);
  const [starting, setStarting] = useState(false);

  const conns = useQuery({
    queryKey: ['grid', 'conexiones', userId],
    queryFn: () => gridApi.connections(userId),
    enabled,
  });
  const connected = useMemo(() => conns.data?.conexiones ?? {}, [conns.data]);
  const pairs = useQuery({
    queryKey: ['grid', 'pairs', exchange],
    queryFn: () => gridApi.pairs(exchange),
    enabled: enabled && exchange !== '',
    staleTime: 5 * 60_000,
  });
  const suggestions = useMemo(() => {
    const q = query.trim().toUpperCase();
    if (!q || q === pair) return [];
    return (pairs.data ?? []).filter((p) => p.toUpperCase().includes(q)).slice(0, MAX_SUGGESTIONS);
  }, [query, pair, pairs.data]);

  const fail = (msg: string) => {
    setError(msg);
    notifications.show({ color: 'red', message: msg });
  };

  const chooseExchange = (key: string) => {
    setExchange(key);
    setError(null);
    if (key !== exchange) {
      events.onPairChanged?.();
      setPair('');
      setQuery('');
      setPrice(null);
    }
    if (key && conns.data && !connected[key]) fail(t('grid.validation.notConnected'));
  };

  const typePair = (v: string) => {
    const up = v.toUpperCase();
    setQuery(up);
    if (up !== pair) setPair('');
  };

  /** Picking a pair reads its price and fills high = +5 %, low = −5 %, step 0.5 %. */
  const pickPair = async (p: string) => {
    setQuery(p);
    setPair(p);
    setError(null);
    events.onPairChanged?.();
    try {
      const px = await gridApi.price(exchange, p, userId);
      if (!Number.isFinite(px) || px <= 0) throw new Error(String(px));
      setPrice(px);
      // The spec's ±5 % and 0.5 % step, or the range and step of a preset applied before.
      const chosen = preset ? GRID_PRESETS[preset] : null;
      const r = chosen ? { ...rangeAround(px, chosen.range), step: chosen.step } : defaultRange(px);
      setHigh(r.high);
      setLow(r.low);
      setStep(r.step);
    } catch (err) {
      console.error('price lookup failed', err);
      setPrice(null);
      fail(t('grid.settings.priceFailed', { pair: p }));
    }
  };

  /** A preset fills step and amount, and High / Low around the price once a pair's price is known. */
  const applyPreset = (key: PresetKey) => {
    const p = GRID_PRESETS[key];
    setPreset(key);
    setStep(p.step);
    setAmount(p.amount);
    if (price !== null) {
      const r = rangeAround(price, p.range);
      setHigh(r.high);
      setLow(r.low);
    }
  };

  /** Enter in the pair search picks the pair typed exactly, else the first suggestion. */
  const submitPair = () => {
    const q = query.trim().toUpperCase();
    const list = pairs.data ?? [];
    const exact = list.find((p) => p === q);
    const chosen = exact ?? suggestions[0];
    if (chosen) void pickPair(chosen);
  };

  /** What the start call sends (and a backtest of these settings). */
  const startInput = (): GridStartInput => {
    const n = (s: string) => Number(s.replace(/,/g, '.'));
    return {
      user: userId,
      exchange,
      pair,
      marketType,
      highPrice: n(high),
      lowPrice: n(low),
      amountPerLevel: n(amount),
      stepPercentage: n(step),
      profitCurrency,
      position,
      leverage,
    };
  };

  const start = async () => {
    setError(null);
    const key = validateGridStart({
      email,
      exchange,
      pair,
      high,
      low,
      amount,
      step,
      profitCurrency,
      connected,
    });
    if (key) return fail(t(`grid.validation.${key}`));
    setStarting(true);
    try {
      const r = await gridApi.start(startInput());
      if (!r.ok) return fail(r.error || t('grid.errors.startFailed'));
      notifications.show({
        color: 'green',
        message: t('grid.settings.started', { pair, exchange: exchangeName(exchange) }),
        autoClose: 3_000,
      });
      events.onStarted?.(r.id ?? r.bot?.id ?? null);
      await qc.invalidateQueries({ queryKey: ['grid', 'active'] });
    } catch (err) {
      // The server's refusal says why; a failed request is the spec's network text.
      if (err instanceof ApiError) fail(errorMessage(err, '') || t('grid.errors.startFailed'));
      else fail(t('grid.errors.network'));
    } finally {
      setStarting(false);
    }
  };

  return {
    exchange,
    chooseExchange,
    isConnected: exchange !== '' && !!connected[exchange],
    connectionsKnown: conns.data !== undefined,
    marketType,
    chooseMarketType,
    query,
    typePair,
    pair,
    pickPair,
    submitPair,
    suggestions,
    price,
    leverage,
    setLeverage,
    high,
    setHigh: edited(setHigh),
    low,
    setLow: edited(setLow),
    profitCurrency,
    setProfitCurrency,
    amount,
    setAmount: edited(setAmount),
    step,
    setStep: edited(setStep),
    /** The preset applied last, until a figure is edited by hand. */
    preset,
    applyPreset,
    position,
    setPosition,
    error,
    fail,
    starting,
    start,
    startInput,
  };
}

export type GridFormState = ReturnType<typeof useGridForm>;
