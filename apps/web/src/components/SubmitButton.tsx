import { useHydrated } from '../hydrated';

/** Disabled while the request runs, with a label that says so (and until the app runs the form). */
export function SubmitButton({ busy, label, busyLabel }: { busy: boolean; label: string; busyLabel: string }) {
  const hydrated = useHydrated();
  return (
    <button type="submit" className="primary" disabled={busy || !hydrated}>
      {busy ? busyLabel : label}
    </button>
  );
}
