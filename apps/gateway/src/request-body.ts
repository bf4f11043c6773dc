import type { FastifyRequest } from 'fastify';

/** Whether the request carries a body (decided from its headers, before it is read). */
export const hasBody = (req: FastifyRequest) =>
  req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;

/** The media type of the body, without parameters, lower-cased ('' when none is declared). */
export const mediaType = (req: FastifyRequest) => (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
