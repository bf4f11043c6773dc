import { MESSAGE_CODES } from '@accounts/validators';
import { z } from 'zod';
import { PROBLEM_STATUS, type ProblemCode } from './errors.js';

// What the procedures answer, as schemas: checked on the way out (nothing else leaves) and
// read by tools (the OpenAPI document of the form routes).

/** What leaves the service about a user: never the hash. */
export const publicUserSchema = z.object({ id: z.uuid(), name: z.string(), email: z.string(), realm: z.string(), emailVerified: z.boolean() });

/** A new session, in the result only for a program that asked for its tokens in the body. */
const deliveredSession = z.object({ token: z.string(), expiresAt: z.date() }).optional();

export const userResult = z.object({ user: publicUserSchema, session: deliveredSession, knownDevice: z.string().optional() });
export const okResult = z.object({ ok: z.literal(true) });
export const passwordChangedResult = z.object({ ok: z.literal(true), otherSessionsRevoked: z.int().min(0), session: deliveredSession });

export const settingsResult = z.object({
  productName: z.string(),
  realm: z.object({ slug: z.string(), name: z.string(), isDefault: z.boolean() }),
  passwordPolicy: z.object({ minLength: z.int(), maxLength: z.int() }),
});

export const PROBLEM_CODES = Object.keys(PROBLEM_STATUS) as [ProblemCode, ...ProblemCode[]];

export const fieldErrorSchema = z.object({
  field: z.string(),
  code: z.enum(MESSAGE_CODES as [string, ...string[]]),
  message: z.string(),
  /** The values the message was filled with, e.g. { "min": 15 }. */
  params: z.record(z.string(), z.unknown()).optional(),
});

/** The RFC 9457 problem every refusal carries; `codes` narrows it to what one status can say. */
export const problemSchema = (codes: readonly ProblemCode[] = PROBLEM_CODES) =>
  z.object({
    type: z.literal('about:blank'),
    status: z.int(),
    title: z.string(),
    code: z.enum(codes as [ProblemCode, ...ProblemCode[]]),
    detail: z.string().optional(),
    errors: z.array(fieldErrorSchema).optional(),
    retryAfter: z.int().min(0).optional(),
  });
