import { Component, type ErrorInfo, type ReactNode } from 'react';
import { LocaleContext, translate } from '../i18n';

interface State {
  failed: boolean;
}

/** The last line of defence: a crash in any page shows a way out, never a blank screen. */
export class ErrorBoundary extends Component<{ children: ReactNode }, State> {
  static override contextType = LocaleContext;
  declare context: React.ContextType<typeof LocaleContext>;
  override state: State = { failed: false };

  static getDerivedStateFromError(): State {
    return { failed: true };
  }

  override componentDidCatch(error: Error, info: ErrorInfo) {
    console.error(error, info.componentStack);
  }

  override render() {
    if (!this.state.failed) return this.props.children;
    const t = (key: Parameters<typeof translate>[1]) => translate(this.context, key);
    return (
      <main className="page crash" id="main">
        <h1>{t('crashTitle')}</h1>
        <p>{t('crashBody')}</p>
        <button type="button" onClick={() => window.location.reload()}>
          {t('reload')}
        </button>
      </main>
    );
  }
}
