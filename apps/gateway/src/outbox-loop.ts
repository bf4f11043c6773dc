import type { FastifyInstance } from 'fastify';

// The loop of a background sender (the mail outbox, the back-channel logout outbox): a round
// every `pollMs` from ready to close, at once again after a full round, never inside a request,
// paused while draining; a stop waits for the round in flight.

export interface OutboxLoop {
  /** One round: whether it was full (more may be due at once). */
  round(): Promise<boolean>;
  pollMs: number;
  /** The log line when a round fails (the database unreachable): it is tried again after pollMs. */
  unreachable: string;
  /** Run after the last round, on close. */
  close?(): void;
}

export function startOutboxLoop(app: FastifyInstance & { draining: boolean }, loop: OutboxLoop) {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | null = null;

  const schedule = (ms: number) => {
    if (stopped) return;
    timer = setTimeout(tick, ms);
    timer.unref();
  };
  const tick = () => {
    if (stopped || app.draining) return;
    running = loop
      .round()
      .then((full) => schedule(full ? 0 : loop.pollMs))
      .catch((err: unknown) => {
        app.log.warn({ err: err instanceof Error ? err.message : String(err) }, loop.unreachable);
        schedule(loop.pollMs);
      })
      .finally(() => {
        running = null;
      });
  };

  app.addHook('onReady', (done) => {
    schedule(0);
    done();
  });
  app.addHook('preClose', (done) => {
    stopped = true;
    clearTimeout(timer);
    done();
  });
  app.addHook('onClose', async () => {
    stopped = true;
    clearTimeout(timer);
    await running;
    loop.close?.();
  });
}
