import { TICKER_ASSETS } from '@bytx/contract';
import { startTransition, useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api, getToken, readAnswer, takeEarlyAnswer } from '../../shared/api/client';
import { PlainActionIcon, PlainGroup, PlainText } from '../../shared/ui/plain';
import {
  formatChange,
  formatPrice,
  parseTickerResponse,
  TICKER_REFRESH_MS,
  TICKER_SCROLL_STEP,
  type TickerPrices,
} from './tickerFormat';

/**
 * Prices come from our own server (browsers never call third parties). The first call takes the answer
 * index.html's hints script asked for when the page opened, if it did (apps/web/vite.config.ts
 * `routeHints`): sent by the bar's first render, after the first script's download, the request came
 * back just before a page's first paint, one more round trip on its path (issue 39, Lighthouse's LCP).
 */
async function fetchTicker(): Promise<TickerPrices> {
  try {
    const early = takeEarlyAnswer('/api/ticker', getToken());
    return parseTickerResponse(
      await (early ? early.then((res) => readAnswer<unknown>(res)) : api<unknown>('/api/ticker')),
    );
  } catch (err) {
    // Spec part 1 §8: logged only; the previous prices stay (the query keeps its last data).
    console.error('Error fetching prices', err);
    throw err;
  }
}

/**
 * The prices, fetched at once and then every 10 s while the tab is visible; a failed refresh keeps the
 * previous prices. Its own timer, not TanStack Query: the bar is in the first script, Query comes with
 * the pages (app/query.tsx).
 */
function useTickerPrices(): TickerPrices | undefined {
  const [prices, setPrices] = useState<TickerPrices>();
  useEffect(() => {
    let live = true;
    let inFlight = false;
    const load = async () => {
      if (inFlight) return;
      inFlight = true;
      try {
        const next = await fetchTicker();
        // A transition: React renders it in slices between the page's own work (the first prices came
        // while a page was drawing, one task of ~50 ms on a phone's CPU with Intl's first number format).
        if (live) startTransition(() => setPrices(next));
      } catch {
        // Logged by fetchTicker; the previous prices stay.
      } finally {
        inFlight = false;
      }
    };
    void load();
    const timer = setInterval(() => {
      // As Query's refetchIntervalInBackground: false, no refresh in a hidden tab.
      if (document.visibilityState !== 'hidden') void load();
    }, TICKER_REFRESH_MS);
    return () => {
      live = false;
      clearInterval(timer);
    };
  }, []);
  return prices;
}

/**
 * The fixed price bar at the bottom of every page (spec part 1 §2): the 16 ticker assets, refreshed
 * every 10 s, with left and right buttons that scroll the list 200 px smoothly.
 */
export function TickerBar() {
  const { t } = useTranslation();
  const scroller = useRef<HTMLDivElement>(null);
  const prices = useTickerPrices();

  const scroll = (dir: 1 | -1) =>
    scroller.current?.scrollBy({ left: dir * TICKER_SCROLL_STEP, behavior: 'smooth' });

  return (
    <PlainGroup
      gap={4}
      wrap="nowrap"
      style={{ paddingInline: 'calc(0.25rem * var(--mantine-scale))', height: '100%' }}
      data-testid="ticker-bar"
    >
      <PlainActionIcon
        variant="subtle"
        onClick={() => scroll(-1)}
        aria-label={t('shell.ticker.left')}
        data-testid="ticker-left"
      >
        ‹
      </PlainActionIcon>
      <div
        ref={scroller}
        data-testid="ticker-scroll"
        // A region that scrolls sideways: focusable, so the arrow keys scroll it (WCAG 2.1.1).
        tabIndex={0}
        role="region"
        aria-label={t('shell.ticker.label')}
        style={{
          flex: 1,
          overflowX: 'auto',
          overflowY: 'hidden',
          whiteSpace: 'nowrap',
          scrollbarWidth: 'none',
        }}
      >
        <PlainGroup
          gap="lg"
          wrap="nowrap"
          component="ul"
          style={{ listStyle: 'none', margin: 0, padding: 0 }}
        >
          {TICKER_ASSETS.map((asset) => {
            const quote = prices?.[asset.id];
            const change = formatChange(quote?.usd_24h_change);
            const color = change.direction === 'down' ? 'red' : change.direction === 'up' ? 'teal' : 'dimmed';
            return (
              <PlainGroup
                key={asset.id}
                component="li"
                gap={6}
                wrap="nowrap"
                data-testid={`ticker-item-${asset.id}`}
                title={asset.name}
              >
                <PlainText size="sm" fw={600}>
                  {asset.symbol}
                </PlainText>
                <PlainText size="sm" data-testid={`ticker-price-${asset.id}`}>
                  {formatPrice(quote?.usd)}
                </PlainText>
                <PlainText
                  size="sm"
                  c={color}
                  data-testid={`ticker-change-${asset.id}`}
                  data-direction={change.direction ?? ''}
                >
                  {change.text}
                </PlainText>
              </PlainGroup>
            );
          })}
        </PlainGroup>
      </div>
      <PlainActionIcon
        variant="subtle"
        onClick={() => scroll(1)}
        aria-label={t('shell.ticker.right')}
        data-testid="ticker-right"
      >
        ›
      </PlainActionIcon>
    </PlainGroup>
  );
}
