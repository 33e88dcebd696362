import { z } from 'zod';

export const healthResponse = z.object({
  ok: z.literal(true),
  version: z.string(),
  db: z.enum(['pglite', 'postgres']),
});
export type HealthResponse = z.infer<typeof healthResponse>;
