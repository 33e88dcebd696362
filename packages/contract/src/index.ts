// Schemas and types of every HTTP call in the spec's call tables; one file per area.
export * from './catalog';
export * from './common';
export * from './input';
export * from './forum';
export * from './health';
export * from './market';
export * from './exchanges';
export * from './wallet';
export * from './accounts';
export * from './bots';
export * from './classic-dca';
export * from './pending';
export * from './history';
export * from './derivatives';
export * from './grid';
export * from './arbitrage';
export * from './signal';
