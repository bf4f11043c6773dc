import type { FastifyRequest } from 'fastify';

/** Whether the request carries a body (decided from its headers, before it is read). */
export const hasBody = (req: FastifyRequest) =>
  req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;

/** The media type of the body, without parameters, lower-cased ('' when none is declared). */
export const mediaType = (req: FastifyRequest) =>
  (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();

/**
 * Writes the declared media type back lower-cased (parameters as sent), so that the parsers
 * after the checks here (tRPC compares `application/json` case-sensitively) read
 * `APPLICATION/JSON` as the same type (RFC 9110 §8.3.1: the type is case-insensitive).
 */
export function normalizeMediaType(req: FastifyRequest) {
  const type = req.headers['content-type'];
  if (type === undefined) return;
  const semicolon = type.indexOf(';');
  req.headers['content-type'] = semicolon < 0 ? mediaType(req) : `${mediaType(req)}${type.slice(semicolon)}`;
}
