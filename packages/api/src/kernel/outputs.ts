import { MESSAGE_CODES, SECOND_STEP_METHODS } from '@accounts/validators';
import { z } from 'zod';
import { PROBLEM_STATUS, type ProblemCode } from './errors.js';

// What the procedures answer, as schemas: checked on the way out (nothing else leaves) and
// read by tools (the OpenAPI document of the form routes). Each router's own results live beside
// it (routers/*-outputs.ts); here are the parts they share, and the problem every refusal carries.

/** What leaves the service about a user: never the hash. */
export const publicUserSchema = z.object({
  id: z.uuid(),
  name: z.string(),
  email: z.string(),
  realm: z.string(),
  emailVerified: z.boolean(),
});

/** Done, and nothing more to say; results with more to say extend it. */
export const okResult = z.object({ ok: z.literal(true) });

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
    methods: z.array(z.enum(SECOND_STEP_METHODS)).optional(),
    pendingToken: z.string().optional(),
    attemptsLeft: z.int().min(1).optional(),
    next: z.string().optional(),
  });
