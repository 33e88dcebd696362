import { useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { ORDERS_POLL_MS, tradingApi, tradingKeys } from './api';

/** GET /api/spot/orders of the exchange and symbol, polled; shared by the orders panel and the chart. */
export function useOrders(exchange: string, symbol: string, paused = false) {
  return useQuery({
    queryKey: tradingKeys.orders(exchange, symbol),
    queryFn: () => tradingApi.orders(exchange, symbol),
    enabled: exchange !== '' && symbol !== '',
    refetchInterval: paused ? false : ORDERS_POLL_MS,
    retry: false,
  });
}

/**
 * A toggle that switches itself off after `seconds` (the chart's TP and SL toggles: the spec's
 * 30-second counter). `left` is the whole seconds still to run while on; 0 is off.
 */
export function useCountdownToggle(seconds: number) {
  const [until, setUntil] = useState<number | null>(null);
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (until === null) return;
    const id = setInterval(() => {
      const t = Date.now();
      setNow(t);
      if (t >= until) setUntil(null);
    }, 250);
    return () => clearInterval(id);
  }, [until]);
  const left = until === null ? 0 : Math.max(0, Math.ceil((until - now) / 1_000));
  return {
    on: left > 0,
    left,
    set: (on: boolean) => {
      const t = Date.now();
      setNow(t);
      setUntil(on ? t + seconds * 1_000 : null);
    },
  };
}
