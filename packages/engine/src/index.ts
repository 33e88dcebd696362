export * from './strategy';
export * from './money';
export * from './grid-dca/types';
export * from './grid-dca/strategy';
export * from './classic-dca/types';
export * from './classic-dca/strategy';
export * from './classic-dca/vnc';
