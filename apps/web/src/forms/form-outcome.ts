import { TRPCClientError } from '@trpc/client';
import { createContext, useContext } from 'react';
import type { FormOutcome } from '../page-data';
import type { PageFormName } from '../page-forms';
import { hasNavigated } from '../router';
import type { Problem } from '../trpc';

/** The answer to a form the browser posted without scripts, for the page rendered with it. */
export const FormOutcomeContext = createContext<FormOutcome | null>(null);

/**
 * What form `name` of this page came to when it was posted without scripts (the server's render
 * and the hydration of it alike); nothing once the person has moved on to another page.
 */
export function useFormOutcome(name: PageFormName | null): FormOutcome | null {
  const outcome = useContext(FormOutcomeContext);
  return name !== null && outcome?.form === name && !hasNavigated() ? outcome : null;
}

/** What the page's form posted without scripts came to, whichever form it was (null: none, or moved on). */
export function usePostedForm(): FormOutcome | null {
  const outcome = useContext(FormOutcomeContext);
  return outcome && !hasNavigated() ? outcome : null;
}

/** The result form `name` showed on the page when it was posted without scripts, if it succeeded. */
export function useFormResult<T>(name: PageFormName): T | undefined {
  const outcome = useFormOutcome(name);
  return outcome && !outcome.problem ? (outcome.result as T) : undefined;
}

/** The values of form `name` when it was posted without scripts and succeeded (what was entered, never a secret). */
export function useFormSuccess(name: PageFormName): Record<string, string> | null {
  const outcome = useFormOutcome(name);
  return outcome && !outcome.problem ? outcome.values : null;
}

/** A refusal the server rendered, as the error a submit of the app would have thrown. */
export const problemError = (problem: Problem) =>
  new TRPCClientError<never>(problem.title, {
    result: { error: { message: problem.title, code: -32600, data: { problem } } } as never,
  });
