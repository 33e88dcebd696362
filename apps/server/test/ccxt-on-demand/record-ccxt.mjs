// `node --import <this file>`: records, in the file RECORD_CCXT_FILE names, the first module the process
// loads from node_modules/ccxt (and who imported it), through a module loader hook that sees every import,
// static or dynamic, of the bundle or of tsx (ccxt-on-demand.test.ts).
import { register } from 'node:module';

register(new URL('./record-ccxt-hook.mjs', import.meta.url), {
  data: { file: process.env.RECORD_CCXT_FILE },
});
