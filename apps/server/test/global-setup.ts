import { buildServerBundle } from '../../../scripts/server-bundle';
import { ensureDatabaseSnapshot } from './db-snapshot';

/**
 * Once per test run, before any file: the migrated database snapshot every fresh test database starts
 * from, and the server bundle the tests that spawn a server run (e2e/harness.ts reads its path here).
 */
export default async function setup(): Promise<void> {
  await ensureDatabaseSnapshot();
  process.env.BYTX_SERVER_BUNDLE = await buildServerBundle();
}
