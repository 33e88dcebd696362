import { readFileSync } from 'node:fs';
import path from 'node:path';

const rootPkg = JSON.parse(
  readFileSync(path.resolve(import.meta.dirname, '../../../package.json'), 'utf8'),
) as {
  version: string;
};
export const APP_VERSION = rootPkg.version;
