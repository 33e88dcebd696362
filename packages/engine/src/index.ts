export * from './strategy';
export * from './money';
export * from './dca';
