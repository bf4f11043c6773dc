import type { FormEvent } from 'react';
import type { PageFormName } from '../page-forms';
import { PostForm } from './PostForm';

interface RemoveFormProps {
  /** The page form's name (`_form`), and what it posts besides. */
  name: PageFormName;
  hidden: Record<string, string>;
  onSubmit: (event: FormEvent<HTMLFormElement>) => void;
  /** A removal of this page is under way; `mine` when it is this row's. */
  busy: boolean;
  mine: boolean;
  label: string;
  text: { remove: string; removing: string };
}

/** One row's "Remove" on a list page (apps, connected accounts): a page form that works without scripts. */
export function RemoveForm({ name, hidden, onSubmit, busy, mine, label, text }: RemoveFormProps) {
  return (
    <PostForm name={name} hidden={hidden} onSubmit={onSubmit} busy={busy}>
      <button type="submit" className="secondary" disabled={busy} aria-label={label}>
        {busy && mine ? text.removing : text.remove}
      </button>
    </PostForm>
  );
}
