/** Disabled while the request runs, with a label that says so. Before the app runs, the browser posts the form itself. */
export function SubmitButton({ busy, label, busyLabel }: { busy: boolean; label: string; busyLabel: string }) {
  return (
    <button type="submit" className="primary" disabled={busy}>
      {busy ? busyLabel : label}
    </button>
  );
}
