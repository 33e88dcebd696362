import { safeEncode, type $ZodType } from 'zod/v4/core';

/**
 * The JSON body a route's response schema makes of `data`, exactly as fastify-type-provider-zod's
 * serializer writes it (encode through the schema, then JSON.stringify): for answers kept serialized
 * in a read cache and sent as they are (`reply.type('application/json; charset=utf-8').send(body)`).
 */
export function serializeAs(schema: $ZodType, data: unknown): string {
  const result = safeEncode(schema, data);
  if (result.error) throw result.error;
  return JSON.stringify(result.data);
}
