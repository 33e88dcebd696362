import { z } from 'zod';

/** `GET /api/health`: the process serves (answered from memory, no database round trip). */
export const healthResponse = z.object({
  ok: z.literal(true),
  version: z.string(),
  db: z.enum(['pglite', 'postgres']),
});
export type HealthResponse = z.infer<typeof healthResponse>;

/**
 * `GET /api/ready`: 200 once the database answers and this process's first reconcile is done (its bot
 * runner leased and reconciled the bots it found at start; `off` where this process runs no bots), 503
 * before that or while the database does not answer.
 */
export const readyResponse = z.object({
  ok: z.boolean(),
  version: z.string(),
  db: z.enum(['pglite', 'postgres']),
  /** `starting`: the process serves but has not opened its database yet (its early listener answers). */
  database: z.enum(['up', 'down', 'starting']),
  runner: z.enum(['reconciled', 'starting', 'off']),
  error: z.string().optional(),
  message: z.string().optional(),
});
export type ReadyResponse = z.infer<typeof readyResponse>;
