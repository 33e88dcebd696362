// One file per area; each area owns its tables and its migration number range (docs/database.md).
export * from './core';
export * from './accounts';
export * from './forum';
export * from './bots';
export * from './exchanges';
export * from './market';
export * from './signal';
export * from './trading';
export * from './backtest';
export * from './chain';
