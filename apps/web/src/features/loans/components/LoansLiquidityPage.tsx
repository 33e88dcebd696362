import { InDevelopment } from '../../../shared/ui/InDevelopment';

export function LoansLiquidityPage() {
  return <InDevelopment title="Loans & Liquidity" />;
}
