export * from './errors';
export * from './types';
export * from './precision';
export * from './derivatives';
export * from './simulator';
export * from './paper-venue';
export * from './addresses';
export * from './ccxt-venue';
