import { afterAll, describe, expect, it } from 'vitest';
import i18n from '../i18n/index';
import { eventSentence } from './eventText';

/** A value for each `{{name}}` a sentence interpolates: words where the server sends words. */
const WORDS: Record<string, string | number> = {
  reason: 'cancelled',
  role: 'base',
  mode: 'close_market',
  message: 'binance {"code":-2010,"msg":"Account has insufficient balance"}',
  exchange: 'binance',
  buy_exchange: 'binance',
  sell_exchange: 'bybit',
  failed_exchange: 'bybit',
  filled_exchange: 'binance',
  exchanges: 'binance,bybit',
  symbol: 'BTC/USDT',
  side: 'buy',
  failed_side: 'sell',
  filled_side: 'buy',
  direction: 'binance_to_bybit',
  clientOrderId: 'b1-7',
  lot_id: 'b1-3',
  trip: 't-4',
  status: 'closed',
  field: 'price',
  action: 'sell',
  problem: 'auth_failed',
  enabled: 1,
  until: '2025-01-01T10:00:00Z',
  position: 'long',
};
const paramsOf = (text: string) =>
  Object.fromEntries(
    [...text.matchAll(/\{\{(\w+)\}\}/g)].map(([, name]) => [name!, WORDS[name!] ?? 12345.678]),
  );

/** Every sentence of a namespace's catalog, in `lng`. */
function codesOf(ns: string, lng: string): Record<string, string> {
  const tree = i18n.getResourceBundle(lng, 'translation') as Record<string, Record<string, unknown>>;
  const events = tree[ns]?.events as { codes?: Record<string, string> } | undefined;
  return events?.codes ?? {};
}

const NAMESPACES = ['grid-dca', 'classic-dca', 'arbitrage', 'bots'];
const sentence = (lng: string, ns: string, code: string, params: unknown) =>
  eventSentence(
    i18n.getFixedT(lng),
    { exists: (k) => i18n.exists(k, { lng }), language: lng },
    [ns],
    code,
    params,
  );

describe('event sentences', () => {
  afterAll(() => i18n.changeLanguage('en'));

  it.each(['en', 'es'])('renders every known event type as a sentence with its figures (%s)', (lng) => {
    let n = 0;
    for (const ns of NAMESPACES) {
      for (const [code, text] of Object.entries(codesOf(ns, lng))) {
        const out = sentence(lng, ns, code, paramsOf(text));
        n++;
        expect(out, `${ns}.${code}`).not.toMatch(/[{}]/);
        expect(out, `${ns}.${code}`).not.toContain('undefined');
        expect(out, `${ns}.${code}`).not.toContain(code.includes('_') ? code : '\u0000');
        if (text.includes('{{price}}')) {
          // 12345.678 with the locale's separators, 2 decimals from 1,000 up.
          expect(out, `${ns}.${code}`).toContain(lng === 'es' ? '12.345,68' : '12,345.68');
        }
      }
    }
    expect(n).toBeGreaterThan(90);
  });

  it('has a sentence for every event the classic DCA, Grid Bot DCA and arbitrage strategies write', () => {
    // The codes packages/engine writes for these kinds (log calls), and the runner's own.
    const written: Record<string, string[]> = {
      'classic-dca': [
        'add_funds',
        'auto_fund',
        'auto_fund_set',
        'auto_fund_skipped',
        'base_filled',
        'buy_filled',
        'close_failed',
        'cycle_adopted',
        'cycle_closed',
        'cycle_started',
        'invalid_value',
        'liquidated',
        'lot_action_refused',
        'lot_forgotten',
        'lot_selling',
        'order_rejected',
        'safety_filled',
        'safety_rearmed',
        'smart_buy',
        'smart_buy_skipped',
        'tp_vnc_set',
        'trend_ok',
        'trend_wait',
        'trend_warming',
        'vnc_below_min',
        'vnc_merged',
        'vnc_sold',
        'sl_hit',
        'tp_plus_hit',
        'stopping',
        'below_min_cost',
      ],
      'grid-dca': [
        'auto_fund',
        'auto_fund_set',
        'auto_fund_skipped',
        'back_in_range',
        'below_min_cost',
        'close_failed',
        'invalid_value',
        'liquidated',
        'lot_action_refused',
        'lot_closed',
        'lot_forgotten',
        'lot_funds_added',
        'lot_opened',
        'order_cap',
        'order_rejected',
        'out_of_range',
        'ra_set',
        'relocate_skipped',
        'sl_hit',
        'sl_set',
        'started',
        'stopping',
        'tp_plus_hit',
        'tp_plus_set',
      ],
      arbitrage: [
        'arb_closed',
        'arb_leg_failed',
        'arb_opportunity',
        'arb_paused',
        'arb_prepared',
        'arb_round_trip',
        'arb_unwind_failed',
        'arb_unwind_skipped',
        'arb_unwound',
        'arb_waiting_inventory',
        'below_min_cost',
        'close_failed',
        'order_rejected',
        'started',
      ],
      bots: [
        'error',
        'exchange_error',
        'invalid_order',
        'exchange_unmapped',
        'reconcile_never_placed',
        'reconcile_unknown_order',
        'reconcile_fill',
        'order_lost',
        'resumed',
        'reconcile_liquidation',
        'leverage_failed',
        'order_skipped_liquidated',
        'venue_liquidation',
        'problem_cleared',
        'start_failed',
        'stopped',
        'connection_changed',
      ],
    };
    for (const lng of ['en', 'es']) {
      for (const [ns, codes] of Object.entries(written)) {
        for (const code of codes) {
          const known =
            i18n.exists(`${ns}.events.codes.${code}`, { lng }) ||
            i18n.exists(`bots.events.codes.${code}`, { lng });
          expect(known, `${lng} ${ns} ${code}`).toBe(true);
        }
      }
    }
  });

  it("says the classic DCA's base_filled with its figures, not JSON", () => {
    const params = { cycle: 2, price: 95909.59, qty: 0.000208, fee: 0.01976298 };
    expect(sentence('en', 'classic-dca', 'base_filled', params)).toBe(
      'Base order of cycle 2 filled: 0.000208 at 95,909.59 (fee 0.01976298).',
    );
    expect(sentence('es', 'classic-dca', 'base_filled', params)).toBe(
      'Orden base del ciclo 2 ejecutada: 0,000208 a 95.909,59 (comisión 0,01976298).',
    );
  });

  it('translates the words the server sends (reasons, roles, modes) and names the fields of a JSON message', () => {
    expect(sentence('es', 'classic-dca', 'order_rejected', { role: 'safety', reason: 'cancelled' })).toBe(
      'Orden rechazada por el exchange (cancelada).',
    );
    expect(sentence('en', 'bots', 'stopping', { mode: 'cancel_only' })).toBe(
      'Stopping (keep the assets, cancel the orders only).',
    );
    const out = sentence('en', 'bots', 'error', {
      message: 'binance {"code":-2010,"msg":"Account has insufficient balance"}',
    });
    expect(out).toBe('Error: binance code -2010, msg Account has insufficient balance');
  });

  it('falls back to a readable line for a code no catalog names, never JSON', () => {
    const out = sentence('en', 'classic-dca', 'brand_new_thing', {
      fee: 0.01976298,
      qty: 1234.5,
      nested: { a: 1 },
      list: [1, 2],
    });
    expect(out).toBe('Brand new thing: fee 0.01976298 · qty 1,234.5 · nested a 1 · list 1, 2');
    expect(sentence('es', 'arbitrage', 'mystery', {})).toBe('Mystery');
    expect(sentence('es', 'arbitrage', 'mystery', null)).not.toMatch(/[{}]/);
  });
});
