/**
 * The mark of a POST that only reads (a poll sent as a POST because the web app passes a body, such as
 * `pnls_actuales`): spread into the route's schema, it appears in the OpenAPI document as the operation
 * extension `x-read-only: true` (@fastify/swagger copies a schema's `x-` keys to the operation). Every
 * GET reads by definition; the HTTP read bench (bench/http.bench.ts) measures every GET and every
 * operation marked so, straight from `/api/docs/json` (docs/read-path.md).
 */
export const READ_ONLY = { 'x-read-only': true } as const;

declare module 'fastify' {
  interface FastifySchema {
    /** See READ_ONLY: a POST that changes nothing. */
    'x-read-only'?: true;
  }
}
