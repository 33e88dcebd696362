import { z } from 'zod';

/**
 * A text field whose type error tells a missing value (absent or null: 'is required') from a value of
 * another type (a number or an object: 'must be text'), prefixed by `name` when given.
 */
export const textField = (name?: string) =>
  z.string({
    error: (iss) => `${name ? `${name} ` : ''}${iss.input == null ? 'is required' : 'must be text'}`,
  });

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
