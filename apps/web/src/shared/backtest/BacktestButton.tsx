import { Button } from '@mantine/core';
import { lazy, Suspense, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { BacktestKind } from './api';

// Its own chunk, fetched on the first opening: a start form's first visit does not need the dialog, its
// inputs and the backtest contract's schemas (zod) (issue 39, `/bot-dca`'s first page).
const BacktestDialog = lazy(() => import('./BacktestDialog').then((m) => ({ default: m.BacktestDialog })));

export interface BacktestButtonProps {
  kind: BacktestKind;
  /** The form's current params, exactly as its start call sends them (read when Run is pressed). */
  getParams: () => Record<string, unknown>;
  exchange: string;
  symbol: string;
  /** 'Start this bot' from the result: the form's own start with the same params. */
  onStart?: (params: Record<string, unknown>) => void;
}

/**
 * 'Backtest' beside a start form's Start: opens the backtest of the form's settings. The dialog is
 * mounted only while open, so each opening starts from a clean slate (and closing it cancels a run).
 */
export function BacktestButton({ kind, getParams, exchange, symbol, onStart }: BacktestButtonProps) {
  const { t } = useTranslation();
  const [open, setOpen] = useState(false);
  return (
    <>
      <Button variant="default" onClick={() => setOpen(true)} data-testid="backtest-button">
        {t('backtest.button')}
      </Button>
      {open && (
        <Suspense fallback={null}>
          <BacktestDialog
            opened
            onClose={() => setOpen(false)}
            kind={kind}
            getParams={getParams}
            exchange={exchange}
            symbol={symbol}
            onStart={onStart}
          />
        </Suspense>
      )}
    </>
  );
}
