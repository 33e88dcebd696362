import type { FastifyInstance } from 'fastify';
import helmet from 'helmet';

/**
 * The headers of every API answer (JSON under `/api/`): the set OWASP's REST Security Cheat Sheet
 * names for an API ("Security Headers"), plus Cross-Origin-Resource-Policy. An API answer is never
 * rendered as a page, so the document policies (script and style sources, referrer, DNS prefetch,
 * origin-agent clustering…) have nothing to act on there; `default-src 'none'` and `frame-ancestors
 * 'none'` keep a JSON answer opened in a tab or a frame inert. `no-store`: most answers depend on the
 * session and none should be kept; a route that wants caching sets its own.
 *
 * Why not helmet's full set on these too: it is about 900 bytes of headers on answers of 100–2,000
 * bytes, and the 10 calls the dashboards poll are where the server spends its time (issue 18). On
 * this machine a bare Node server answering the same JSON went from ~24,000 to ~17,000 req/s at 100
 * connections with helmet's headers added (docs/performance.md).
 */
export const API_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'cache-control': 'no-store',
  'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
  'cross-origin-resource-policy': 'same-origin',
  'strict-transport-security': 'max-age=31536000; includeSubDomains',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
});

export interface SecurityHeadersOptions {
  /** Origins the web app's scripts may call besides its own (a configured chain RPC). */
  connectSrc: string[];
}

/** API answers carry {@link API_HEADERS}; documents (the web app, its files, /api/docs) helmet's set. */
export function isApiAnswer(url: string): boolean {
  return url.startsWith('/api/') && !url.startsWith('/api/docs');
}

/**
 * Security headers on every answer, set in `onRequest` so that error answers carry them too. Both sets
 * are built once at start: @fastify/helmet builds the whole middleware (and parses the CSP) again for
 * every request, which cost more than a cached session lookup (issue 18's profile).
 */
export function registerSecurityHeaders(app: FastifyInstance, opts: SecurityHeadersOptions): void {
  const documentHeaders = helmet({
    contentSecurityPolicy: {
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'"],
        // Mantine and the Swagger UI set inline styles.
        styleSrc: ["'self'", "'unsafe-inline'"],
        imgSrc: ["'self'", 'data:'],
        // A real chain (CHAIN_RPC_URL) is read by the browser from its own origin (docs/chain.md).
        connectSrc: ["'self'", ...opts.connectSrc],
        frameAncestors: ["'none'"],
        objectSrc: ["'none'"],
        baseUri: ["'self'"],
        formAction: ["'self'"],
        upgradeInsecureRequests: null,
      },
    },
    hsts: { maxAge: 31536000, includeSubDomains: true },
    referrerPolicy: { policy: 'no-referrer' },
    crossOriginEmbedderPolicy: false,
  });
  app.addHook('onRequest', (request, reply, done) => {
    if (isApiAnswer(request.url)) {
      reply.headers(API_HEADERS);
      done();
      return;
    }
    // The Swagger UI's pages and files are session-free, but were never cached either.
    if (request.url.startsWith('/api/')) reply.header('cache-control', 'no-store');
    documentHeaders(request.raw, reply.raw, (err?: unknown) => done(err as Error | undefined));
  });
}
