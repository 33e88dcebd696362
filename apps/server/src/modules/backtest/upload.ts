/**
 * The body of `POST /api/backtest`, read in the backtest worker thread (issue 37 point 3,
 * docs/backtest.md "Uploads"): a body of 600,000 inline candles is about 26 MB of JSON, and parsing and
 * checking it took over a second of the server's event loop. The worker does what the server did, in
 * the same order and with the same texts:
 *
 * 1. the JSON parser (fastify's: secure-json-parse, `__proto__` and `constructor.prototype` refused,
 *    an empty body read as `{}` as plugins/input.ts does);
 * 2. the input rules of plugins/input.ts (control characters, non-finite numbers, depth);
 * 3. the raw `user_id` / `user` (the server checks them against the session: 403 before any 400 of
 *    the schema, as the auth plugin's hook does);
 * 4. the call's zod schema, its issues worded as plugins/errors.ts words them;
 * 5. the inline or CSV candles (candle-input.ts), returned as columns (transferred, not copied), or
 *    the 400 they get — answered by the server only after the form's own checks, as before.
 */
import { createRequire } from 'node:module';
import {
  backtestStartBody,
  findUnsafeInput,
  VERBATIM_VALIDATION_MESSAGES,
  type BacktestInterval,
} from '@bytx/contract';
import type { z } from 'zod';
import { HttpError } from '../../lib/errors';
import { csvCandles, inlineCandles, type CandleColumns } from './candle-input';

/** fastify's own JSON parser library, resolved through fastify (the copy it parses bodies with). */
const secureJson = createRequire(createRequire(import.meta.url).resolve('fastify'))('secure-json-parse') as {
  parse: (
    text: string,
    reviver: null,
    options: { protoAction: 'error'; constructorAction: 'error' },
  ) => unknown;
};

/** The body after its schema, without its candles (they travel as columns). */
export type UploadBody = Omit<z.output<typeof backtestStartBody>, 'candles' | 'csv'> & {
  /** Which candle field the body had (its text or rows stay in the worker). */
  hasCandles: boolean;
  hasCsv: boolean;
  interval: BacktestInterval;
};

/** An answer the server gives as is (status, text, extra fields of the error body). */
export interface UploadError {
  status: number;
  message: string;
  extra: Record<string, unknown>;
}

export type UploadResult =
  /** The JSON or the input rules refused the body (before the user_id check). */
  | { stage: 'input'; error: UploadError }
  | {
      stage: 'parsed';
      /** The raw `user_id` / `user` of a body that is an object (checked against the session). */
      identity: { user_id?: unknown; user?: unknown };
      /** The schema's 400, else the body. */
      schemaError: UploadError | null;
      body: UploadBody | null;
      /** The candles of `candles` or `csv`, or their 400; null when the body has neither. */
      candles: CandleColumns | null;
      candleError: UploadError | null;
    };

const errorOf = (err: unknown): UploadError => {
  if (err instanceof HttpError)
    return { status: err.statusCode, message: err.message, extra: { ...err.extra } };
  throw err;
};

/** plugins/errors.ts's wording of schema issues (`Invalid request: field: message; …`). */
function schemaMessage(error: z.ZodError): UploadError {
  const verbatim = error.issues.find((i) => VERBATIM_VALIDATION_MESSAGES.has(i.message));
  if (verbatim) return { status: 400, message: verbatim.message, extra: {} };
  const text = error.issues
    .map((i) => {
      const field = i.path.map(String).join('.');
      return field ? `${field}: ${i.message}` : i.message;
    })
    .join('; ');
  return { status: 400, message: `Invalid request: ${text}`, extra: {} };
}

/** Reads a `POST /api/backtest` body (UTF-8 bytes of JSON) as the server would (see the file's note). */
export function parseUpload(bytes: Uint8Array): UploadResult {
  const text = new TextDecoder().decode(bytes);
  let data: unknown;
  if (text.trim() === '') data = {};
  else {
    try {
      data = secureJson.parse(text, null, { protoAction: 'error', constructorAction: 'error' });
    } catch {
      const message = 'Invalid request: the body is not valid JSON';
      return { stage: 'input', error: { status: 400, message, extra: {} } };
    }
  }
  if (data === null) data = {};
  const unsafe = findUnsafeInput(data, 'body');
  if (unsafe) {
    const error = {
      status: 400,
      message: `Invalid request: ${unsafe.message}`,
      extra: { field: unsafe.field },
    };
    return { stage: 'input', error };
  }
  const identity: { user_id?: unknown; user?: unknown } = {};
  if (typeof data === 'object' && data !== null && !Array.isArray(data)) {
    const o = data as Record<string, unknown>;
    identity.user_id = o.user_id;
    identity.user = o.user;
  }
  const parsed = backtestStartBody.safeParse(data);
  if (!parsed.success) {
    const schemaError = schemaMessage(parsed.error);
    return { stage: 'parsed', identity, schemaError, body: null, candles: null, candleError: null };
  }
  const { candles: rows, csv, ...rest } = parsed.data;
  const body: UploadBody = { ...rest, hasCandles: rows !== undefined, hasCsv: csv !== undefined };
  let candles: CandleColumns | null = null;
  let candleError: UploadError | null = null;
  try {
    if (rows !== undefined) candles = inlineCandles(rows);
    else if (csv !== undefined) candles = csvCandles(csv);
  } catch (err) {
    candleError = errorOf(err);
  }
  return { stage: 'parsed', identity, schemaError: null, body, candles, candleError };
}
