/** The on-chain actions, loaded on first use (viem and the ABIs are not in the first page). */
export const loadChainActions = () => import('./actions');
export type ChainActions = Awaited<ReturnType<typeof loadChainActions>>;
