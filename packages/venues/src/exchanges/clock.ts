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
    // ccxt keeps a failed market load's rejected promise (loadMarkets returns it again until
    // reloaded): when the skewed request was the one loading the markets (Bybit loads its coins with
    // signed calls), the retry must load them again, not get the old refusal.
    const loading = ex as unknown as { markets?: unknown; marketsLoading?: unknown };
    if (loading.markets === undefined) loading.marketsLoading = undefined;
    (ex.options as Record<string, unknown>).adjustForTimeDifference = true;
    if (!ex.has.fetchTime) continue;
    try {
      await ex.loadTimeDifference();
    } catch {
      // The time endpoint failed too: the retry below reports the original kind of error.
    }
  }
}
