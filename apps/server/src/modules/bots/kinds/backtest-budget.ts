/** A backtest's default budget rounded up to the cent (the kinds' backtest adapters). */
export const ceil2 = (x: number) => Math.ceil(x * 100 - 1e-9) / 100;
