// Every SQL statement the service sends, shown to an observer (metrics, traces) in one place: the
// client drizzle is given is wrapped, and so is each transaction's. Without an observer nothing is.

/** Told of each statement when it is sent; the function it returns is called once it settles. */
export interface QueryObserver {
  statement(text: string): (error?: unknown) => void;
}

/** Which methods of a client send a statement, and which open a transaction. */
export interface ClientMethods {
  statements: readonly string[];
  transactions: readonly string[];
}

/**
 * `client` with each call of its `statements` methods made through `around` (given the statement
 * and the call itself), also inside the transactions its `transactions` methods open (their
 * callback's last argument receives the transaction).
 */
export function aroundStatements<C extends object>(
  client: C,
  methods: ClientMethods,
  around: (text: string, send: () => PromiseLike<unknown>) => PromiseLike<unknown>,
): C {
  const wrap = <T extends object>(target: T): T =>
    new Proxy(target, {
      get(object, prop, receiver) {
        const value = Reflect.get(object, prop, receiver) as unknown;
        if (typeof value !== 'function' || typeof prop !== 'string') return value;
        if (methods.statements.includes(prop))
          return (text: string, ...rest: unknown[]) =>
            around(text, () => (value as (...a: unknown[]) => PromiseLike<unknown>).call(object, text, ...rest));
        if (methods.transactions.includes(prop))
          return (...args: unknown[]) => {
            const body = args.pop() as (tx: object) => unknown;
            return (value as (...a: unknown[]) => unknown).call(object, ...args, (tx: object) => body(wrap(tx)));
          };
        return value;
      },
    });
  return wrap(client);
}

/** `client` with each statement reported to `observer`, also inside its transactions. */
export function observeStatements<C extends object>(client: C, observer: QueryObserver, methods: ClientMethods): C {
  return aroundStatements(client, methods, (text, send) => {
    const settle = observer.statement(text);
    // Sent at once: postgres.js runs a query on its first then(), a tick later, so .values() called after still counts.
    const pending = send();
    pending.then(
      () => settle(),
      (err: unknown) => settle(err ?? new Error('statement failed')),
    );
    return pending;
  });
}

/** postgres.js: drizzle sends every statement through unsafe(); begin() and savepoint() open transactions. */
export const POSTGRES_METHODS = { statements: ['unsafe'], transactions: ['begin', 'savepoint'] } as const;
/** PGlite: query() and exec(); transaction() opens one. */
export const PGLITE_METHODS = { statements: ['query', 'exec'], transactions: ['transaction'] } as const;
