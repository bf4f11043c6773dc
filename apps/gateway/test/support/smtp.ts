import type { AddressInfo } from 'node:net';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  from: string;
  to: string[];
  subject: string;
  text: string;
  html: string;
  language?: string;
  /** The first link in the text part. */
  link?: string;
  parsed: ParsedMail;
}

export interface TestSmtp {
  url: string;
  port: number;
  mails: ReceivedMail[];
  /** Resolves with the first received mail (now or later) matching `pick`. */
  waitFor(pick: (m: ReceivedMail) => boolean, ms?: number): Promise<ReceivedMail>;
  /** From now on, refuse this many deliveries with a temporary error (451). */
  refuseNext(n: number): void;
  /** Deliveries refused so far. */
  refused: number;
  close(): Promise<void>;
}

/** A real SMTP server on a free port that keeps what it receives, parsed. */
export async function startSmtp(): Promise<TestSmtp> {
  const mails: ReceivedMail[] = [];
  const waiters: { pick: (m: ReceivedMail) => boolean; resolve: (m: ReceivedMail) => void }[] = [];
  let refuse = 0;
  const state = { refused: 0 };
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onMailFrom(_address, _session, cb) {
      if (refuse > 0) {
        refuse--;
        state.refused++;
        const err = Object.assign(new Error('try again later'), { responseCode: 451 });
        return cb(err);
      }
      cb();
    },
    onData(stream, session, cb) {
      simpleParser(stream)
        .then((parsed) => {
          const text = parsed.text ?? '';
          const mail: ReceivedMail = {
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            to: session.envelope.rcptTo.map((r) => r.address),
            subject: parsed.subject ?? '',
            text,
            html: typeof parsed.html === 'string' ? parsed.html : '',
            language: parsed.headers.get('content-language') as string | undefined,
            link: /https?:\/\/\S+/.exec(text)?.[0],
            parsed,
          };
          mails.push(mail);
          for (const w of [...waiters])
            if (w.pick(mail)) {
              waiters.splice(waiters.indexOf(w), 1);
              w.resolve(mail);
            }
          cb();
        })
        .catch((err: Error) => cb(err));
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;
  return {
    url: `smtp://127.0.0.1:${port}`,
    port,
    mails,
    get refused() {
      return state.refused;
    },
    refuseNext(n) {
      refuse = n;
    },
    waitFor(pick, ms = 20_000) {
      const hit = mails.find(pick);
      if (hit) return Promise.resolve(hit);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`no matching mail within ${ms} ms (received ${mails.length})`)),
          ms,
        );
        waiters.push({ pick, resolve: (m) => (clearTimeout(timer), resolve(m)) });
      });
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The token of a mailed link. */
export const tokenOf = (mail: ReceivedMail) => new URL(mail.link!).searchParams.get('token')!;
