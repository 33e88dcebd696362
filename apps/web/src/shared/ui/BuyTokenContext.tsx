import { createContext, useContext } from 'react';

/**
 * Opens the token purchase modal from anywhere (header, landing). The shell provides it and renders
 * the modal, so a feature can open it without importing another feature.
 */
export interface BuyTokenControl {
  open: () => void;
}

export const BuyTokenContext = createContext<BuyTokenControl>({ open: () => undefined });

export const useBuyTokenModal = () => useContext(BuyTokenContext);
