export { buildApp } from './app';
export { loadConfig } from './config';
