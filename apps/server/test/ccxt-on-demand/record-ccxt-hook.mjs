// The loader hook of record-ccxt.mjs (runs on the loader thread).
import fs from 'node:fs';

let file = null;
let recorded = false;

export function initialize(data) {
  file = data?.file ?? null;
}

export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  if (!recorded && file && result.url.includes('/node_modules/ccxt/')) {
    recorded = true;
    fs.appendFileSync(file, `${result.url} imported by ${context.parentURL ?? '(entry)'}\n`);
  }
  return result;
}
