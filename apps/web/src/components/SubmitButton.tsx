/**
 * Disabled while the request runs, with a label that says so. Before the app runs, the browser
 * posts the form itself. `danger` for what ends or removes something (styles.css).
 */
export function SubmitButton({
  busy,
  label,
  busyLabel,
  danger = false,
}: {
  busy: boolean;
  label: string;
  busyLabel: string;
  danger?: boolean;
}) {
  return (
    <button type="submit" className={danger ? 'primary danger' : 'primary'} disabled={busy}>
      {busy ? busyLabel : label}
    </button>
  );
}
