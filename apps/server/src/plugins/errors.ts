import { VERBATIM_VALIDATION_MESSAGES } from '@bytx/contract';
import { VenueError } from '@bytx/venues';
import type { FastifyError, FastifyInstance, FastifyReply } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { HttpError } from '../lib/errors';
import { venueErrorAnswer } from '../lib/venue-errors';

function sendHttpError(reply: FastifyReply, err: HttpError) {
  const retryAfter = err.extra.retryAfter;
  if (typeof retryAfter === 'number') reply.header('retry-after', String(retryAfter));
  return reply
    .status(err.statusCode)
    .send({ success: false, ok: false, error: err.message, message: err.message, ...err.extra });
}

/** Turns `{ path, message }` issues into one sentence a user can act on. */
function describeValidation(issues: { instancePath?: string; message?: string }[]): string {
  return issues
    .map((i) => {
      const field = (i.instancePath ?? '').replace(/^\//, '').replace(/\//g, '.');
      return field ? `${field}: ${i.message ?? 'invalid'}` : (i.message ?? 'invalid');
    })
    .join('; ');
}

/**
 * One error handler (DESIGN.md principle 3): 4xx carry a clear message in `error` and `message`
 * (the spec's clients read either), 5xx never carry internals.
 */
export function registerErrorHandler(app: FastifyInstance) {
  app.setErrorHandler((err: FastifyError | HttpError | Error, request, reply) => {
    if (err instanceof VenueError) {
      const answer = venueErrorAnswer(err);
      request.log.warn({ exchange: err.exchange, error: err.name }, 'venue error answered');
      return sendHttpError(reply, answer);
    }
    if (err instanceof HttpError) return sendHttpError(reply, err);
    if (hasZodFastifySchemaValidationErrors(err)) {
      const verbatim = err.validation.find((v) => VERBATIM_VALIDATION_MESSAGES.has(v.message ?? ''));
      if (verbatim?.message) {
        return reply
          .status(400)
          .send({ success: false, ok: false, error: verbatim.message, message: verbatim.message });
      }
      const message = `Invalid request: ${describeValidation(
        err.validation.map((v) => ({ instancePath: v.instancePath, message: v.message })),
      )}`;
      return reply.status(400).send({ success: false, ok: false, error: message, message });
    }
    const statusCode = (err as FastifyError).statusCode;
    if (statusCode && statusCode >= 400 && statusCode < 500) {
      const message =
        statusCode === 429
          ? 'Too many requests. Please wait a moment and try again.'
          : (err as FastifyError).code === 'FST_ERR_CTP_INVALID_JSON_BODY' ||
              (err as FastifyError).code === 'FST_ERR_CTP_EMPTY_JSON_BODY'
            ? 'Invalid request: the body is not valid JSON'
            : err.message;
      return reply.status(statusCode).send({ success: false, ok: false, error: message, message });
    }
    request.log.error({ err }, 'unhandled error');
    return reply
      .status(500)
      .send({ success: false, ok: false, error: 'Internal server error', message: 'Internal server error' });
  });
}
