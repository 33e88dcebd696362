import { z } from 'zod';

/** The spec's calls carry the user identifier (email, else id, else 'anonimo'); the server checks it. */
export const userIdField = z.string().max(320).optional();

/** A number that may arrive as a JSON number or a numeric string (the spec's forms send both). */
export const numeric = z.union([z.number(), z.string().trim().min(1)]).transform((v, ctx) => {
  const n = typeof v === 'number' ? v : Number(v.replace(',', '.'));
  if (!Number.isFinite(n)) {
    ctx.addIssue({ code: 'custom', message: 'must be a number' });
    return z.NEVER;
  }
  return n;
});

export const errorResponse = z.object({
  success: z.literal(false),
  error: z.string(),
  message: z.string(),
});
