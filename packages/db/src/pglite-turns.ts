import type { PGlite } from '@electric-sql/pglite';
import { aroundStatements, PGLITE_METHODS, type ClientMethods } from './query-observer.js';

const { statements, transactions }: ClientMethods = PGLITE_METHODS;
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * PGlite runs each statement on the event loop, and whoever waits for it (a statement, or a
 * transaction) starts the moment the one before ends: a promise settles, no new task begins. Under
 * load the statements of many requests ran back to back, and a health check or a socket's data
 * waited behind all of them. Here they take turns: one at a time, as PGlite would run them, with
 * one turn of the event loop before each (a few microseconds when nothing else waits).
 */
export function takingTurns(client: PGlite): PGlite {
  let last: Promise<unknown> = Promise.resolve();
  const inTurn = <T>(run: () => Promise<T>): Promise<T> => {
    const mine = last.then(nextTurn).then(run);
    last = mine.catch(() => {});
    return mine;
  };
  // Inside a transaction nobody else runs until it ends; its statements only let the loop turn.
  const inside = <T extends object>(tx: T) =>
    aroundStatements(tx, { statements, transactions: [] }, async (_text, send) => {
      await nextTurn();
      return send();
    });
  return new Proxy(client, {
    get(object, prop, receiver) {
      const value = Reflect.get(object, prop, receiver) as unknown;
      if (typeof value !== 'function') return value;
      const call = value as (...args: unknown[]) => Promise<unknown>;
      if (typeof prop === 'string' && statements.includes(prop))
        return (...args: unknown[]) => inTurn(() => call.apply(object, args));
      if (typeof prop === 'string' && transactions.includes(prop))
        return (body: (tx: object) => unknown) => inTurn(() => call.call(object, (tx: object) => body(inside(tx))));
      return value;
    },
  });
}
