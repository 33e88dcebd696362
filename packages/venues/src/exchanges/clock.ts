import type ccxt from 'ccxt';

type CcxtExchange = InstanceType<(typeof ccxt)['Exchange']>;

/**
 * Measures again how far our clock is from each exchange instance's (ccxt's loadTimeDifference: one
 * fetchTime, offset kept in options.timeDifference, ms) and turns on adjustForTimeDifference, so the
 * next signed request carries the exchange's time. After a ClockSkewError (timestamp outside the
 * exchange's receive window). Best effort: an exchange without a time endpoint, or one that fails
 * now, keeps its current offset and the request is retried once anyway.
 */
export async function resyncClock(exchanges: readonly (CcxtExchange | null | undefined)[]): Promise<void> {
  for (const ex of exchanges) {
    if (!ex) continue;
    // The skewed request may have been the one loading the markets (Bybit loads its coins with
    // signed calls): the retry must load them again, not get the old refusal.
    forgetFailedMarketLoad(ex);
    (ex.options as Record<string, unknown>).adjustForTimeDifference = true;
    if (!ex.has.fetchTime) continue;
    try {
      await ex.loadTimeDifference();
    } catch {
      // The time endpoint failed too: the retry below reports the original kind of error.
    }
  }
}

/**
 * ccxt keeps the promise of a market load that failed and hands it to every later `loadMarkets`
 * (and so to every call that loads the markets first) until a reload is asked: one timeout or 5xx
 * during a venue's first market load would make that ccxt instance fail for good. Called after any
 * failed call: when the instance has no markets yet, its failed load is dropped and the next call
 * loads them again.
 */
export function forgetFailedMarketLoad(ex: CcxtExchange | null | undefined): void {
  const loading = ex as unknown as { markets?: unknown; marketsLoading?: unknown } | null | undefined;
  if (loading && loading.markets === undefined) loading.marketsLoading = undefined;
}
