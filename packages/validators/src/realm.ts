import { z } from 'zod';

/** A realm slug is one DNS label, since realms are reached as <slug>.<root domain>. */
export const realmSlugField = z
  .string()
  .trim()
  .toLowerCase()
  .regex(/^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/, {
    error: 'A realm slug is one DNS label: a-z, 0-9 and inner hyphens, at most 63.',
  });

export const realmNameField = z.string().trim().min(1, { error: 'A realm needs a name.' }).max(150);
