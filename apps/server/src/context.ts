import type { FastifyBaseLogger } from 'fastify';
import type { Config } from './config';
import type { Database, Db } from './db/client';
import type { SecretBox } from './lib/crypto';

/**
 * What every module is built from. Modules construct their repositories and services from it;
 * long-lived services register `onClose` hooks for their own shutdown.
 */
export interface AppContext {
  config: Config;
  database: Database;
  db: Db;
  secretBox: SecretBox;
  log: FastifyBaseLogger;
  /** Shared by modules within one app instance (market-data hub, bot runner, mailer...). */
  services: Partial<AppServices>;
}

/** Filled by the modules that own each service; declare a key here when a module exposes one. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface AppServices {}
