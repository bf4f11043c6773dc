import { startBuiltGateway, type RunningGateway } from './gateway-process';

/** The built gateway on its own data directory, sending mail to `smtpUrl`; its log is kept. `env` comes on top. */
export function startMailGateway(smtpUrl: string, env: Record<string, string> = {}): Promise<RunningGateway> {
  return startBuiltGateway({
    dirPrefix: 'accounts-web-mail-',
    prepare: ['migrate'],
    env: { LOG_LEVEL: 'info', SMTP_URL: smtpUrl, MAIL_POLL_MS: '100', ...env },
  });
}
