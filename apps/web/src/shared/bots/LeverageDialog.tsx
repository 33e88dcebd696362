import { lazy, Suspense, type ComponentProps } from 'react';

export { clampLeverage, LEVERAGE_MAX, LEVERAGE_MIN } from './leverage';

/*
 * The dialog's own chunk (Mantine's NumberInput and react-number-format, about 10 KB gzip), fetched
 * on its first open: /bot-dca, /grid-bot and /futuros show it only on a click (issue 39: the first
 * visit of /bot-dca).
 */
const LeverageModal = lazy(() => import('./LeverageModal').then((m) => ({ default: m.LeverageModal })));

/**
 * 'Adjust Leverage' (spec part 2 §2): − / numeric input / +, kept between 1 and `max`, Cancel and
 * Confirm (./LeverageModal.tsx). Test ids `<prefix>-leverage-{dialog,minus,input,plus,cancel,confirm}`.
 */
export function LeverageDialog(props: ComponentProps<typeof LeverageModal>) {
  return (
    <Suspense fallback={null}>
      <LeverageModal {...props} />
    </Suspense>
  );
}
