export * from './errors';
export * from './types';
export * from './precision';
export * from './simulator';
export * from './paper-venue';
export * from './addresses';
export * from './ccxt-venue';
