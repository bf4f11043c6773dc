// What the account logic tells whoever watches it (the gateway's metrics and traces), without
// knowing who that is: small interfaces, each optional, so nothing is reported when nobody asks.

/** The outcome of a procedure call: "success", or the problem code it was refused with. */
export type Outcome = string;

/** Watches procedure calls (account.signIn, account.register…). */
export interface ProcedureObserver {
  /**
   * Runs one call (a trace wraps it in a span); `run` resolves once it has settled, with its
   * outcome reported through outcome() just before.
   */
  procedure<T>(path: string, run: () => Promise<T>): Promise<T>;
  outcome(path: string, outcome: Outcome): void;
}

/** Which of the hasher's pools a task ran on. */
export type HashingPool = 'hashing' | 'estimating';

/** Watches the hashing pool's tasks; times are milliseconds since the epoch. */
export interface HashingObserver {
  /** A task finished: handed to the pool at `queued`, taken up by a thread at `began`, done at `ended`. */
  task(pool: HashingPool, times: { queued: number; began: number; ended: number }): void;
}
