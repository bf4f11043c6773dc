import type { FormEvent, ReactNode } from 'react';
import type { Form } from '../forms/useForm';
import type { PageFormName } from '../page-forms';
import { useHref } from '../router';

interface PostFormProps {
  /** Which of the page's forms (PAGE_FORMS): sent as `_form`, so the server knows what to do without scripts. */
  name: PageFormName;
  onSubmit: (event: FormEvent<HTMLFormElement>) => void;
  busy?: boolean;
  /** Fields the person does not type (which session to end, the link's token). */
  hidden?: Record<string, string>;
  className?: string;
  /** Ids of what the form is about (the prompt of a confirm step). */
  describedBy?: string;
  children?: ReactNode;
}

/**
 * A form that works with scripts and without: the app submits it through tRPC; before the app runs
 * (or where scripts never do) the browser posts it to the page's own address, and the server
 * completes it with the same procedure (docs/http-api.md, "Pages and forms").
 */
export function PostForm({
  name,
  onSubmit,
  busy = false,
  hidden = {},
  className,
  describedBy,
  children,
}: PostFormProps) {
  return (
    <form
      method="post"
      action={useHref()}
      noValidate
      onSubmit={onSubmit}
      aria-busy={busy}
      aria-describedby={describedBy}
      className={className}
    >
      <input type="hidden" name="_form" value={name} />
      {Object.entries(hidden).map(([field, value]) => (
        <input key={field} type="hidden" name={field} value={value} />
      ))}
      {children}
    </form>
  );
}

/** PostForm's props for a form run by useForm. */
export const postFormOf = (form: Pick<Form<string>, 'onSubmit' | 'submitting'> & { name: PageFormName }) => ({
  name: form.name,
  onSubmit: (event: FormEvent<HTMLFormElement>) => void form.onSubmit(event),
  busy: form.submitting,
});
