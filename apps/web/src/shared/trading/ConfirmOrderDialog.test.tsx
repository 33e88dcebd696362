import { fireEvent, screen, waitFor } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { renderApp } from '../../../test/renderApp';
import i18n from '../i18n/index';
import type { SpotOrderPreview } from './api';
import { ConfirmOrderDialog } from './ConfirmOrderDialog';

const preview: SpotOrderPreview = {
  exchange: 'binance',
  symbol: 'BTC/USDT',
  side: 'buy',
  type: 'limit',
  price: 65000.1,
  quantity: 0.00153,
  // 65000.1 × 0.00153 = 99.450153; fee × 0.004 = 0.397800612; net × 0.996 = 99.052352388.
  value: 99.450153,
  fee: 0.397800612,
  net: 99.052352388,
  tp: 70000,
  sl: null,
  base: 'BTC',
  quote: 'USDT',
};

function setup(p: SpotOrderPreview | null = preview, market: 'spot' | 'swap' = 'spot') {
  const onConfirm = vi.fn();
  const onCancel = vi.fn();
  renderApp(
    <ConfirmOrderDialog
      market={market}
      preview={p}
      priceStep={0.01}
      onConfirm={onConfirm}
      onCancel={onCancel}
    />,
  );
  return { onConfirm, onCancel };
}

const text = (id: string) => screen.getByTestId(id).textContent;

describe('ConfirmOrderDialog', () => {
  // The figures follow i18next's language; test files share modules (isolate: false).
  beforeEach(async () => {
    await i18n.changeLanguage('en');
  });

  it('shows the rounded order, the 0.4 % fee and the net total at 0.996 (quantity 6 decimals, value 2)', async () => {
    setup();
    await screen.findByTestId('trade-confirm-ok');
    expect(text('trade-confirm-side')).toBe('Buy');
    expect(text('trade-confirm-symbol')).toBe('BTC/USDT');
    expect(text('trade-confirm-type')).toBe('Limit');
    expect(text('trade-confirm-price')).toBe('65,000.10');
    expect(text('trade-confirm-quantity')).toBe('0.001530');
    expect(text('trade-confirm-value')).toBe('99.45');
    expect(text('trade-confirm-fee')).toBe('0.40');
    expect(text('trade-confirm-net')).toBe('99.05');
    expect(text('trade-confirm-tp')).toBe('70,000.00');
    expect(screen.queryByTestId('trade-confirm-sl')).toBeNull();
    expect(screen.getByText('Fee 0.4 % (USDT)')).toBeTruthy();
    expect(screen.getByText('Enter confirms, Escape cancels.')).toBeTruthy();
  });

  it('uses the Spanish separators in Spanish (the house style, shared/ui/numbers)', async () => {
    await i18n.changeLanguage('es');
    try {
      setup({ ...preview, quantity: 1234.5, value: 80_250_123.45 });
      await screen.findByTestId('trade-confirm-ok');
      expect(text('trade-confirm-price')).toBe('65.000,10');
      expect(text('trade-confirm-quantity')).toBe('1.234,500000');
      expect(text('trade-confirm-value')).toBe('80.250.123,45');
    } finally {
      await i18n.changeLanguage('en');
    }
  });

  it('Enter confirms (once, also on the focused Confirm button)', async () => {
    const { onConfirm, onCancel } = setup();
    const ok = await screen.findByTestId('trade-confirm-ok');
    fireEvent.keyDown(ok, { key: 'Enter' });
    expect(onConfirm).toHaveBeenCalledTimes(1);
    fireEvent.keyDown(document.body, { key: 'Enter' });
    expect(onConfirm).toHaveBeenCalledTimes(2);
    expect(onCancel).not.toHaveBeenCalled();
  });

  it('Escape cancels, and Enter on the Cancel button does not confirm', async () => {
    const { onConfirm, onCancel } = setup();
    const cancel = await screen.findByTestId('trade-confirm-cancel');
    fireEvent.keyDown(cancel, { key: 'Enter' });
    expect(onConfirm).not.toHaveBeenCalled();
    fireEvent.keyDown(screen.getByTestId('trade-confirm-ok'), { key: 'Escape' });
    await waitFor(() => expect(onCancel).toHaveBeenCalledTimes(1));
    fireEvent.click(cancel);
    expect(onCancel).toHaveBeenCalledTimes(2);
    expect(onConfirm).not.toHaveBeenCalled();
  });

  it('closed: no dialog and Enter does nothing', async () => {
    const closed = setup(null);
    fireEvent.keyDown(document.body, { key: 'Enter' });
    expect(closed.onConfirm).not.toHaveBeenCalled();
    expect(screen.queryByTestId('trade-confirm-ok')).toBeNull();
  });

  it('futures: Long / Short, the market price', async () => {
    setup({ ...preview, side: 'sell', type: 'market', symbol: 'BTC/USDT:USDT' }, 'swap');
    await screen.findByTestId('trade-confirm-ok');
    expect(text('trade-confirm-side')).toBe('Short');
    expect(text('trade-confirm-type')).toBe('Market');
    expect(screen.getByText('Market price now (USDT)')).toBeTruthy();
  });
});
