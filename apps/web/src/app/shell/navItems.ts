/**
 * How a header link behaves (spec part 1 §2). `trade`: Spot and Futures, which open for the support
 * accounts, or for every logged-in user when the operator set TRADING_SCREENS=all.
 */
export type Access = 'open' | 'login' | 'support' | 'trade';

export interface NavItem {
  to: string;
  label: string;
  access: Access;
  testId: string;
}
