import { InDevelopment } from '../../../shared/ui/InDevelopment';

export function WalletPage() {
  return <InDevelopment title="Wallet" />;
}
